import type {
  CheckoutSession,
  Delivery,
  EventPageResponse,
  EventResponse,
  FailedDeliveriesResponse,
  Mode,
  Order,
  OrderPageResponse,
  OrderPayment,
  Pagination,
  PaginationWithoutTotal,
  Refund,
  SessionListResponse,
  WebhookEvent,
} from '@checkout/contracts';
import {
  amountDue,
  DELIVERY_STATUSES,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  EVENT_TYPES,
  REFUND_REASONS,
} from '@checkout/contracts';
import { e, money, query, timeTag } from './html';
import type { HistoryEntry } from '../../domain/dashboard-views';

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
  section: 'overview' | 'orders' | 'sessions' | 'events' | 'endpoints';
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
a{color:#1d4ed8}
a:focus,button:focus,input:focus,select:focus,summary:focus,.scroll:focus{outline:3px solid #2563eb;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem}
.mode{margin:0;padding:.4rem 1rem;font-weight:700;letter-spacing:.04em;text-align:center}
.mode.test{background:#fff4ce;color:#5c4500}
.mode.live{background:#14532d;color:#fff}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;background:#fff;border-bottom:1px solid #ddd}
header.top p{margin:0;font-weight:600}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.25rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
section.card,div.card{background:#fff;border-radius:10px;padding:1rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.scroll{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.95rem}
caption{text-align:left;font-weight:700;padding:.25rem 0 .5rem}
th,td{padding:.4rem .5rem;text-align:left;vertical-align:top;border-bottom:1px solid #e5e7eb}
thead th{font-weight:700;background:#f9fafb}
td.num,th.num{text-align:right;white-space:nowrap}
code{font-size:.85rem;word-break:break-all}
form.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.5rem 1rem;align-items:end}
label{display:block;font-weight:600;margin:0 0 .2rem}
input,select{width:100%;padding:.5rem;font-size:1rem;border:1px solid #6b7280;border-radius:6px;background:#fff}
button,.button{display:inline-block;padding:.55rem 1rem;font-size:1rem;font-weight:700;color:#fff;background:#1d4ed8;border:0;border-radius:6px;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:#1d4ed8;border:1px solid #1d4ed8}
.status{display:inline-block;padding:0 .45rem;border-radius:5px;font-size:.85rem;font-weight:600;background:#e5e7eb;color:#111}
.status.succeeded,.status.completed,.status.paid{background:#dcfce7;color:#14532d}
.status.failed,.status.expired,.status.cancelled{background:#fee2e2;color:#7f1d1d}
.status.pending,.status.open,.status.unpaid,.status.partially_paid{background:#e0e7ff;color:#1e3a8a}
.notice{border-radius:8px;padding:.75rem;margin:0 0 1rem;background:#e6f0ff;color:#1e3a8a}
.notice.error{background:#fde8e8;color:#7f1d1d}
ol.timeline{list-style:none;margin:0;padding:0 0 0 1rem;border-left:3px solid #d1d5db}
ol.timeline li{margin:0 0 .75rem;padding-left:.5rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;word-break:break-word}
.pager{display:flex;gap:1rem;align-items:center;margin-top:.75rem}
figure{margin:0 0 .75rem}
svg.chart{width:100%;height:auto;max-width:100%}
.c-label{font-size:12px;fill:#1a1a1a}
.c-track{fill:#e5e7eb}
.c-ok{fill:#15803d}
.c-warn{fill:#b45309}
.c-bad{fill:#b91c1c}
.c-axis{stroke:#6b7280}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
ul.plain{list-style:none;margin:0;padding:0}
fieldset{border:1px solid #d1d5db;border-radius:6px;margin:0 0 1rem;padding:.5rem 1rem}
input[type=checkbox]{width:auto}
.status.enabled{background:#dcfce7;color:#14532d}
.status.disabled{background:#fee2e2;color:#7f1d1d}
@media (max-width:600px){main{padding:.5rem}section.card,div.card{padding:.75rem}th,td{padding:.35rem .3rem}.hide-narrow{display:none}}
`;

const NAV: ReadonlyArray<[PageContext['section'], string, string]> = [
  ['overview', '/dashboard', 'Overview'],
  ['orders', '/dashboard/orders', 'Orders'],
  ['sessions', '/dashboard/sessions', 'Checkout sessions'],
  ['events', '/dashboard/events', 'Events'],
  ['endpoints', '/dashboard/webhook_endpoints', 'Webhook endpoints'],
];

function modeBanner(mode: Mode): string {
  return mode === 'test'
    ? '<p class="mode test" role="note">TEST MODE — test data only; no real money moves</p>'
    : '<p class="mode live" role="note">LIVE MODE — real customers and real payments</p>';
}

export function layout(ctx: PageContext | { nonce: string }, title: string, body: string): string {
  const session = 'mode' in ctx ? ctx : undefined;
  const header = session
    ? `${modeBanner(session.mode)}<header class="top"><p>${e(session.organizationName)} <span class="sr-only">dashboard,</span> <span class="status">${session.mode === 'test' ? 'Test' : 'Live'}</span></p><nav aria-label="Dashboard"><ul>${NAV.map(([key, href, label]) => `<li><a href="${href}"${key === session.section ? ' aria-current="page"' : ''}>${label}</a></li>`).join('')}</ul></nav><form method="post" action="/dashboard/logout"><input type="hidden" name="csrf" value="${e(session.csrfToken)}"><button type="submit" class="secondary">Log out</button></form></header>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${e(title)}${session ? ` · ${session.mode === 'test' ? 'Test' : 'Live'} · Dashboard` : ''}</title>
<style nonce="${e(ctx.nonce)}">${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
<main id="main">
${body}
</main>
</body>
</html>`;
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
  return layout(
    { nonce },
    'Log in to the dashboard',
    `${modeBanner(login.mode)}<h1>Log in to the dashboard</h1><div class="card"><p>This link logs you in to the dashboard of <strong>${e(login.organizationName)}</strong> in <strong>${login.mode === 'test' ? 'test' : 'live'} mode</strong>, for 12 hours. It works once.</p>
<form method="post" action="${e(login.action)}"><input type="hidden" name="proof" value="${e(login.proof)}"><p><button type="submit">Log in</button></p></form>
<p>If you did not ask for this link, close this page: nothing has happened yet.</p></div>`,
  );
}

export function messagePage(
  nonce: string,
  title: string,
  message: string,
  link?: { href: string; label: string },
): string {
  return layout(
    { nonce },
    title,
    `<h1>${e(title)}</h1><div class="card"><p>${e(message)}</p>${link ? `<p><a href="${e(link.href)}">${e(link.label)}</a></p>` : ''}</div>`,
  );
}

export const status = (value: string) => `<span class="status ${e(value)}">${e(value.replace(/_/g, ' '))}</span>`;

/** Lists of orders and events come without a total (their owners skip the count); sessions' come with one. */
export function pager(
  pagination: Pagination | PaginationWithoutTotal,
  base: string,
  filters: Record<string, string | undefined>,
): string {
  const where =
    'total' in pagination
      ? `Page ${pagination.page} of ${Math.max(1, Math.ceil(pagination.total / pagination.limit))} (${pagination.total} in all)`
      : `Page ${pagination.page}`;
  const prev =
    pagination.page > 1
      ? `<a href="${e(base + query({ ...filters, page: pagination.page - 1 }))}" rel="prev">Previous page</a>`
      : '';
  const next = pagination.hasMore
    ? `<a href="${e(base + query({ ...filters, page: pagination.page + 1 }))}" rel="next">Next page</a>`
    : '';
  return `<nav class="pager" aria-label="Pagination">${prev}<span>${where}</span>${next}</nav>`;
}

function select(
  name: string,
  label: string,
  options: readonly string[],
  current: string | undefined,
  none = 'Any',
): string {
  return `<div><label for="f-${name}">${e(label)}</label><select id="f-${name}" name="${name}"><option value="">${e(none)}</option>${options.map((o) => `<option value="${e(o)}"${o === current ? ' selected' : ''}>${e(o.replace(/_/g, ' '))}</option>`).join('')}</select></div>`;
}

function text(name: string, label: string, current: string | undefined, hint?: string): string {
  return `<div><label for="f-${name}">${e(label)}</label><input id="f-${name}" name="${name}" type="text" value="${e(current ?? '')}"${hint ? ` placeholder="${e(hint)}"` : ''} autocomplete="off"></div>`;
}

export function notice(message: string | undefined, kind: 'info' | 'error' = 'info'): string {
  return message ? `<p class="notice${kind === 'error' ? ' error' : ''}" role="status">${e(message)}</p>` : '';
}

export function overviewPage(
  ctx: PageContext,
  charts: { hosts: string; payments: string },
  recoverSince: string,
): string {
  return layout(
    ctx,
    'Overview',
    `<h1>Overview</h1>
<section class="card" aria-labelledby="h-hosts"><h2 id="h-hosts">Webhook endpoints, last 24 hours</h2>${charts.hosts}</section>
<section class="card" aria-labelledby="h-payments"><h2 id="h-payments">Payments per hour, last 7 days</h2>${charts.payments}</section>
<section class="card" aria-labelledby="h-recover"><h2 id="h-recover">Recover failed webhook deliveries</h2>
<p>Sends again, once each, every delivery that failed since a time (at most 14 days back). You confirm on the next page.</p>
<form method="get" action="/dashboard/recover" class="filters"><div><label for="since">Failed since (UTC)</label><input id="since" name="since" type="datetime-local" value="${e(recoverSince)}" step="1" required></div><div><button type="submit">Review recovery</button></div></form></section>`,
  );
}

export interface OrderFilters {
  status?: string | undefined;
  paymentStatus?: string | undefined;
  locationId?: string | undefined;
  externalId?: string | undefined;
}

export function ordersPage(ctx: PageContext, list: OrderPageResponse, filters: OrderFilters, error?: string): string {
  const rows = list.orders
    .map(
      (o) =>
        `<tr><th scope="row"><a href="/dashboard/orders/${e(o.id)}"><code>${e(o.id)}</code></a></th><td>${status(o.status)}</td><td>${status(o.paymentStatus)}</td><td class="num">${e(money(o.amounts.total, o.currency))}</td><td class="hide-narrow">${e(o.externalId ?? '—')}</td><td class="hide-narrow">${timeTag(o.createdAt)}</td></tr>`,
    )
    .join('');
  return layout(
    ctx,
    'Orders',
    `<h1>Orders</h1>${notice(error, 'error')}
<section class="card" aria-labelledby="h-filter"><h2 id="h-filter">Filter</h2><form method="get" action="/dashboard/orders" class="filters">
${select('status', 'Status', ORDER_STATUSES, filters.status)}${select('paymentStatus', 'Payment status', PAYMENT_STATUSES, filters.paymentStatus)}${text('locationId', 'Location id', filters.locationId, 'loc_test_…')}${text('externalId', 'External id', filters.externalId)}
<div><button type="submit">Apply filters</button></div></form></section>
<div class="card scroll" role="region" tabindex="0" aria-label="Orders, newest first"><table><caption>Orders, newest first</caption><thead><tr><th scope="col">Order</th><th scope="col">Status</th><th scope="col">Payment</th><th scope="col" class="num">Total</th><th scope="col" class="hide-narrow">External id</th><th scope="col" class="hide-narrow">Created</th></tr></thead><tbody>${rows || '<tr><td colspan="6">No orders match.</td></tr>'}</tbody></table>
${pager(list.pagination, '/dashboard/orders', { ...filters })}</div>`,
  );
}

/** What an event is about (D49): its session, or its order (and refund); a link to the page of it. */
function eventSubject(ev: WebhookEvent): { label: string; id: string; href: string } {
  if ('session' in ev) return { label: 'Session', id: ev.session.id, href: `/dashboard/sessions/${ev.session.id}` };
  if ('refund' in ev) return { label: 'Refund of order', id: ev.refund.id, href: `/dashboard/orders/${ev.order.id}` };
  return { label: 'Order', id: ev.order.id, href: `/dashboard/orders/${ev.order.id}` };
}

/** D48 on the order page: its refunds, newest first, and the Refund form (confirmed on a page of its own, D47). */
function refundsSection(order: Order, refunds: readonly Refund[], refundable: number): string {
  const rows = refunds
    .map(
      (r) =>
        `<tr><th scope="row"><code>${e(r.id)}</code></th><td>${status(r.status)}${r.failureReason ? ` (${e(r.failureReason.replace(/_/g, ' '))})` : ''}</td><td class="num">${e(money(r.amount, r.currency))}</td><td class="hide-narrow">${e(r.reason?.replace(/_/g, ' ') ?? '—')}</td><td class="hide-narrow">${timeTag(r.createdAt)}</td></tr>`,
    )
    .join('');
  const table = `<div class="card scroll" role="region" tabindex="0" aria-label="Refunds, newest first"><table><caption>Refunds, newest first</caption><thead><tr><th scope="col">Refund</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th scope="col" class="hide-narrow">Reason</th><th scope="col" class="hide-narrow">Created</th></tr></thead><tbody>${rows || '<tr><td colspan="5">No refunds.</td></tr>'}</tbody></table></div>`;
  const form =
    refundable > 0
      ? `<section class="card" aria-labelledby="h-refund"><h2 id="h-refund">Refund</h2><p>Up to ${e(money(refundable, order.currency))} can be refunded (paid, less the refunds that succeeded or are pending).</p><form method="get" action="/dashboard/orders/${e(order.id)}/refund" class="filters">${text('amount', `Amount (${order.currency}; empty: all that is refundable)`, undefined, '12.50')}${select('reason', 'Reason', REFUND_REASONS, undefined, 'None given')}<div><button type="submit">Refund…</button></div></form></section>`
      : '';
  return table + form;
}

export function orderPage(
  ctx: PageContext,
  order: Order,
  payments: readonly OrderPayment[],
  refunds: { refunds: readonly Refund[]; refundable: number },
  message?: string,
): string {
  const a = order.amounts;
  const items = order.items
    .map(
      (i) =>
        `<tr><th scope="row">${e(i.name)}</th><td class="num">${i.quantity}</td><td class="num">${e(money(i.unitPrice, order.currency))}</td><td class="num">${e(money(i.totalPrice, order.currency))}</td></tr>`,
    )
    .join('');
  const paymentRows = payments
    .map(
      (p) =>
        `<tr><th scope="row"><code>${e(p.id)}</code></th><td>${e(p.method)}</td><td class="num">${e(money(p.amount, order.currency))}</td><td>${timeTag(p.appliedAt)}</td></tr>`,
    )
    .join('');
  return layout(
    ctx,
    `Order ${order.id}`,
    `<h1>Order <code>${e(order.id)}</code></h1>${notice(message)}
<section class="card" aria-labelledby="h-summary"><h2 id="h-summary">Summary</h2><dl class="facts">
<dt>Status</dt><dd>${status(order.status)}</dd><dt>Payment status</dt><dd>${status(order.paymentStatus)}</dd>
<dt>External id</dt><dd>${e(order.externalId ?? '—')}</dd><dt>Location</dt><dd>${e(order.locationId ?? '—')}</dd>
<dt>Customer</dt><dd>${e(order.customer ? `${order.customer.name ?? ''} ${order.customer.email}`.trim() : '—')}</dd>
<dt>Created</dt><dd>${timeTag(order.createdAt)}</dd><dt>Updated</dt><dd>${timeTag(order.updatedAt)}</dd>${order.paidAt ? `<dt>Paid</dt><dd>${timeTag(order.paidAt)}</dd>` : ''}
</dl></section>
<div class="card scroll" role="region" tabindex="0" aria-label="Items"><table><caption>Items</caption><thead><tr><th scope="col">Item</th><th scope="col" class="num">Quantity</th><th scope="col" class="num">Unit price</th><th scope="col" class="num">Total</th></tr></thead><tbody>${items}</tbody></table></div>
<div class="card scroll" role="region" tabindex="0" aria-label="Amounts"><table><caption>Amounts</caption><tbody>
<tr><th scope="row">Subtotal</th><td class="num">${e(money(a.subtotal, order.currency))}</td></tr><tr><th scope="row">Tax</th><td class="num">${e(money(a.tax, order.currency))}</td></tr>
<tr><th scope="row">Discount</th><td class="num">−${e(money(a.discount, order.currency))}</td></tr><tr><th scope="row">Total</th><td class="num">${e(money(a.total, order.currency))}</td></tr>
<tr><th scope="row">Paid</th><td class="num">${e(money(a.paid, order.currency))}</td></tr><tr><th scope="row">Due</th><td class="num">${e(money(amountDue(a), order.currency))}</td></tr>
<tr><th scope="row">Refunded</th><td class="num">${e(money(a.refunded, order.currency))}</td></tr></tbody></table></div>
<div class="card scroll" role="region" tabindex="0" aria-label="Payments"><table><caption>Payments</caption><thead><tr><th scope="col">Payment</th><th scope="col">Method</th><th scope="col" class="num">Amount</th><th scope="col">Applied</th></tr></thead><tbody>${paymentRows || '<tr><td colspan="4">No payments yet.</td></tr>'}</tbody></table></div>
${refundsSection(order, refunds.refunds, refunds.refundable)}`,
  );
}

export function sessionsPage(ctx: PageContext, list: SessionListResponse): string {
  const rows = list.sessions
    .map(
      (s) =>
        `<tr><th scope="row"><a href="/dashboard/sessions/${e(s.id)}"><code>${e(s.id)}</code></a></th><td>${status(s.status)}</td><td class="num">${e(money(s.order.amounts.total, s.order.currency))}</td><td class="hide-narrow">${timeTag(s.createdAt)}</td></tr>`,
    )
    .join('');
  return layout(
    ctx,
    'Checkout sessions',
    `<h1>Checkout sessions</h1><div class="card scroll" role="region" tabindex="0" aria-label="Checkout sessions, newest first"><table><caption>Checkout sessions, newest first</caption><thead><tr><th scope="col">Session</th><th scope="col">Status</th><th scope="col" class="num">Total</th><th scope="col" class="hide-narrow">Created</th></tr></thead><tbody>${rows || '<tr><td colspan="4">No checkout sessions yet.</td></tr>'}</tbody></table>${pager(list.pagination, '/dashboard/sessions', {})}</div>`,
  );
}

export function sessionPage(ctx: PageContext, session: CheckoutSession, history: readonly HistoryEntry[]): string {
  return layout(
    ctx,
    `Checkout session ${session.id}`,
    `<h1>Checkout session <code>${e(session.id)}</code></h1>
<section class="card" aria-labelledby="h-s"><h2 id="h-s">Summary</h2><dl class="facts">
<dt>Status</dt><dd>${status(session.status)}</dd><dt>Order</dt><dd><a href="/dashboard/orders/${e(session.order.id)}"><code>${e(session.order.id)}</code></a></dd>
<dt>Total</dt><dd>${e(money(session.order.amounts.total, session.order.currency))}</dd><dt>Paid</dt><dd>${e(money(session.order.amounts.paid, session.order.currency))}</dd>
<dt>Failed payment attempts</dt><dd>${session.failedAttempts}</dd><dt>Callback URL</dt><dd>${e(session.callbackUrl ?? '—')}</dd>
<dt>Expires</dt><dd>${timeTag(session.expiresAt)}</dd><dt>Hosted page</dt><dd><a href="${e(session.url)}">${e(session.url)}</a></dd></dl></section>
<section class="card" aria-labelledby="h-hist"><h2 id="h-hist">Status history</h2><ol class="timeline">${history
      .map((h) => `<li>${timeTag(h.at)} — ${h.href ? `<a href="${e(h.href)}">${e(h.label)}</a>` : e(h.label)}</li>`)
      .join('')}</ol></section>`,
  );
}

/** The attempt's error when it says more than its status code does ("HTTP 500" after "HTTP 500" says nothing). */
export function extraError(attempt: { statusCode: number | null; error: string | null }): string | null {
  return attempt.error !== null && attempt.error !== `HTTP ${attempt.statusCode}` ? attempt.error : null;
}

function failedDeliveriesTable(failed: FailedDeliveriesResponse): string {
  if (failed.deliveries.length === 0) return '<p>No failed deliveries. Every webhook that ended has landed.</p>';
  const rows = failed.deliveries
    .map((d) => {
      const last = d.attempts.at(-1);
      const answer = last ? (last.statusCode === null ? 'no response' : `HTTP ${last.statusCode}`) : '—';
      return `<tr><th scope="row"><a href="/dashboard/events/${e(d.eventId)}"><code>${e(d.eventId)}</code></a></th><td class="hide-narrow"><code>${e(d.url)}</code></td><td>${e(answer)}${last && extraError(last) ? ` — ${e(extraError(last))}` : ''}</td><td class="hide-narrow">${timeTag(d.updatedAt)}</td></tr>`;
    })
    .join('');
  return `<div class="scroll" role="region" tabindex="0" aria-label="Most recent failed deliveries"><table><caption>Most recent failed deliveries</caption><thead><tr><th scope="col">Event</th><th scope="col" class="hide-narrow">Callback URL</th><th scope="col">Last answer</th><th scope="col" class="hide-narrow">Failed at</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The events page's filters (D34, D51), as the form sends them; times are datetime-local values read as UTC. */
export interface EventFilters {
  type?: string | undefined;
  deliveryStatus?: string | undefined;
  endpointId?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

function timeInput(name: string, label: string, current: string | undefined): string {
  return `<div><label for="f-${name}">${e(label)}</label><input id="f-${name}" name="${name}" type="datetime-local" step="1" value="${e(current ?? '')}"></div>`;
}

export function eventsPage(
  ctx: PageContext,
  list: EventPageResponse,
  failed: FailedDeliveriesResponse,
  filters: EventFilters,
  message?: string,
  error?: string,
): string {
  const filtered = Object.values(filters).some((value) => value !== undefined && value !== '');
  const rows = list.events
    .map(
      (ev) =>
        `<tr><th scope="row"><a href="/dashboard/events/${e(ev.id)}"><code>${e(ev.id)}</code></a></th><td>${e(ev.event)}</td><td class="hide-narrow"><code>${e(eventSubject(ev).id)}</code></td><td class="hide-narrow">${timeTag(ev.createdAt)}</td></tr>`,
    )
    .join('');
  return layout(
    ctx,
    'Events',
    `<h1>Events</h1>${notice(message)}${notice(error, 'error')}
<section class="card" aria-labelledby="h-failed"><h2 id="h-failed">Failed deliveries</h2>${failedDeliveriesTable(failed)}<p><a href="/dashboard/recover">Recover failed deliveries…</a></p></section>
<section class="card" aria-labelledby="h-filter"><h2 id="h-filter">Filter</h2><form method="get" action="/dashboard/events" class="filters">${select('type', 'Event type', EVENT_TYPES, filters.type)}${select('deliveryStatus', 'A delivery that is', DELIVERY_STATUSES, filters.deliveryStatus)}${text('endpointId', 'Webhook endpoint id', filters.endpointId, 'we_test_…')}${timeInput('createdAfter', 'Created from (UTC)', filters.createdAfter)}${timeInput('createdBefore', 'Created before (UTC)', filters.createdBefore)}<div><button type="submit">Apply filters</button></div></form></section>
<div class="card scroll" role="region" tabindex="0" aria-label="Events, newest first"><table><caption>Events, newest first</caption><thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col" class="hide-narrow">About</th><th scope="col" class="hide-narrow">Created</th></tr></thead><tbody>${rows || `<tr><td colspan="4">${filtered ? 'No events match.' : 'No events yet.'}</td></tr>`}</tbody></table>${pager(list.pagination, '/dashboard/events', { ...filters })}</div>`,
  );
}

function deliverySection(delivery: Delivery, index: number): string {
  const attempts = delivery.attempts
    .map(
      (a) =>
        `<li data-attempt="${a.attempt}"><strong>Attempt ${a.attempt}</strong> at ${timeTag(a.at)}: ${a.statusCode === null ? 'no response' : `HTTP ${a.statusCode}`}, ${a.durationMs} ms${extraError(a) ? ` — ${e(extraError(a))}` : ''}</li>`,
    )
    .join('');
  return `<section class="card delivery" aria-labelledby="h-d${index}" data-delivery-status="${e(delivery.status)}"><h2 id="h-d${index}">Delivery <code>${e(delivery.id)}</code> ${status(delivery.status)}</h2>
<p>To <code>${e(delivery.url)}</code>${delivery.endpointId ? ` (webhook endpoint <a href="/dashboard/webhook_endpoints/${e(delivery.endpointId)}"><code>${e(delivery.endpointId)}</code></a>)` : " (the session's callback URL)"}</p>
<h3>Attempts</h3>${attempts ? `<ol class="timeline" aria-label="Attempts of ${e(delivery.id)}">${attempts}</ol>` : '<p>No attempt yet.</p>'}</section>`;
}

export function eventPage(ctx: PageContext, found: EventResponse, message?: string): string {
  const ev: WebhookEvent = found.event;
  const subject = eventSubject(ev);
  // D49: a session's callback URL receives its session's events only; an order's or a refund's has no delivery.
  const ofSession = 'session' in ev;
  return layout(
    ctx,
    `Event ${ev.id}`,
    `<h1>Event <code>${e(ev.id)}</code></h1>${notice(message)}
<section class="card" aria-labelledby="h-ev"><h2 id="h-ev">Summary</h2><dl class="facts"><dt>Type</dt><dd>${e(ev.event)}</dd><dt>Created</dt><dd>${timeTag(ev.createdAt)}</dd>
<dt>${e(subject.label)}</dt><dd><a href="${e(subject.href)}"><code>${e(subject.id)}</code></a></dd></dl>
${ofSession ? `<p><a class="button" href="/dashboard/events/${e(ev.id)}/redeliver">Redeliver this event…</a></p>` : ''}</section>
${found.deliveries.length === 0 ? `<div class="card"><p>${ofSession ? 'This event has no delivery: its session has no callback URL and no webhook endpoint was subscribed to it.' : "This event has no delivery: no webhook endpoint was subscribed to it (a session's callback URL receives only its session's events)."}</p></div>` : found.deliveries.map(deliverySection).join('')}`,
  );
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
  return layout(
    ctx,
    title,
    `<h1>${e(title)}</h1><div class="card"><p>${e(explanation)}</p>
<form method="post" action="${e(action)}"><input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">${Object.entries(
      fields,
    )
      .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
      .join(
        '',
      )}<p><button type="submit">${e(submitLabel)}</button> <a href="${e(cancelHref)}">Cancel</a></p></form></div>`,
  );
}
