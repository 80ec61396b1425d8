import type { Mode } from '@checkout/contracts';
import { escapeHtml as e, markup, pageShell } from '@checkout/html';
import { STYLE } from './style';

// D47's pages. Server-rendered HTML with no script at all; the CSP allows only this response's nonce for the
// one <style>. Landmarks (header, nav, main), one h1 per page, captions on tables and labels on inputs, a skip
// link and visible focus make it keyboard- and screen-reader-usable; the layout reflows down to 320 px, and a
// table wider than the screen scrolls inside its own labelled, focusable region (so keys can scroll it too).

export interface PageContext {
  nonce: string;
  mode: Mode;
  organizationName: string;
  csrfToken: string;
  /** Which nav entry is current. */
  section: 'overview' | 'balance' | 'orders' | 'sessions' | 'events' | 'endpoints' | 'settings';
}

const NAV: ReadonlyArray<[PageContext['section'], string, string]> = [
  ['overview', '/dashboard', 'Overview'],
  ['balance', '/dashboard/balance', 'Balance'],
  ['orders', '/dashboard/orders', 'Orders'],
  ['sessions', '/dashboard/sessions', 'Checkout sessions'],
  ['events', '/dashboard/events', 'Events'],
  ['endpoints', '/dashboard/webhook_endpoints', 'Webhook endpoints'],
  ['settings', '/dashboard/settings', 'Settings'],
];

const modeName = (mode: Mode) => (mode === 'test' ? 'Test' : 'Live');

function modeBanner(mode: Mode): string {
  return mode === 'test'
    ? '<p class="mode test" role="note">TEST MODE — test data only; no real money moves</p>'
    : '<p class="mode live" role="note">LIVE MODE — real customers and real payments</p>';
}

/** The banner and header of a session's pages: organization, mode, the sections, and Log out. */
function sessionHeader(session: PageContext): string {
  const links = NAV.map(([key, href, label]) => {
    const current = key === session.section ? ' aria-current="page"' : '';
    return `<li><a href="${href}"${current}>${label}</a></li>`;
  }).join('');
  return markup`
    ${modeBanner(session.mode)}
    <header class="top">
      <p>${e(session.organizationName)} <span class="sr-only">dashboard,</span> <span
        class="status">${modeName(session.mode)}</span></p>
      <nav aria-label="Dashboard"><ul>${links}</ul></nav>
      <form method="post" action="/dashboard/logout">
        <input type="hidden" name="csrf" value="${e(session.csrfToken)}">
        <button type="submit" class="secondary">Log out</button>
      </form>
    </header>`;
}

/** A page: a session's (its banner, header and nav) or, given only a nonce, one shown before or after a session. */
export function layout(ctx: PageContext | { nonce: string }, title: string, body: string): string {
  const session = 'mode' in ctx ? ctx : undefined;
  return pageShell({
    title: session ? `${title} · ${modeName(session.mode)} · Dashboard` : title,
    nonce: ctx.nonce,
    style: STYLE,
    before: `<a class="skip" href="#main">Skip to content</a>\n${session ? sessionHeader(session) : ''}`,
    mainId: 'main',
    main: body,
  });
}

/**
 * D47: what opening a login link shows. Nothing is used until the button is pressed (a POST): a link scanner's
 * GET leaves the link as it was. It names the organization and mode, so a link someone else sent (to log you into
 * their organization) says so before anything happens.
 */
export function loginPage(
  nonce: string,
  login: { organizationName: string; mode: Mode; action: string; proof: string },
): string {
  const mode = login.mode === 'test' ? 'test' : 'live';
  const body = markup`
    ${modeBanner(login.mode)}
    <h1>Log in to the dashboard</h1>
    <div class="card">
      <p>This link logs you in to the dashboard of <strong>${e(login.organizationName)}</strong> in <strong>${mode} mode</strong>,
        for 12 hours. It works once.</p>
      <form method="post" action="${e(login.action)}">
        <input type="hidden" name="proof" value="${e(login.proof)}">
        <p><button type="submit">Log in</button></p>
      </form>
      <p>If you did not ask for this link, close this page: nothing has happened yet.</p>
    </div>`;
  return layout({ nonce }, 'Log in to the dashboard', body);
}

export function messagePage(
  nonce: string,
  title: string,
  message: string,
  link?: { href: string; label: string },
): string {
  const back = link ? `<p><a href="${e(link.href)}">${e(link.label)}</a></p>` : '';
  return layout({ nonce }, title, `<h1>${e(title)}</h1><div class="card"><p>${e(message)}</p>${back}</div>`);
}

/** A confirm step (D47: actions are confirmed on a page of their own, not by a script dialog). */
export function confirmPage(
  ctx: PageContext,
  title: string,
  explanation: string,
  action: string,
  fields: Record<string, string>,
  cancelHref: string,
  submitLabel: string,
): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join('');
  const body = markup`
    <h1>${e(title)}</h1>
    <div class="card">
      <p>${e(explanation)}</p>
      <form method="post" action="${e(action)}">
        <input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">${hidden}
        <p><button type="submit">${e(submitLabel)}</button> <a href="${e(cancelHref)}">Cancel</a></p>
      </form>
    </div>`;
  return layout(ctx, title, body);
}
