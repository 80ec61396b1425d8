import { amountDue, type CheckoutSession } from '@checkout/contracts';
import { escapeHtml as e, markup, pageShell } from '@checkout/html';
import { PAYMENT_METHOD_TABLE } from '../../domain/payment-methods';
import { brandLogo, brandStyle } from './brand';
import type { PageText } from './i18n/page-text';
import { NOTICES, type PageContext } from './page-context';
import { payForm, paymentQr } from './pay-form';
import { pollScript } from './poll-script';
import { summary } from './summary';

// The hosted page's pages: pending (the form, or in live mode the processor's note), terminal (completed,
// expired, cancelled) and a message. The pending page's script keeps it live (poll-script.ts). Every word comes
// from the page's locale's catalog (i18n/), and the style is written in logical properties (start, end), so a
// right-to-left locale lays the page out right to left.

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:34rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:.25rem 0 1rem}
h2{font-size:1.05rem;margin:0 0 .75rem}
.badge{display:inline-block;background:#fff4ce;color:#5c4500;border-radius:6px;padding:.1rem .5rem;font-size:.8rem;font-weight:600}
table{width:100%;border-collapse:collapse}
td,th{padding:.35rem 0;text-align:start;vertical-align:top;font-weight:normal}
td.num,th.num{text-align:end;white-space:nowrap}
tr.total th,tr.total td{font-weight:700;border-top:1px solid #ddd;padding-top:.6rem}
.muted{color:#555}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=tel],input[type=email],select{width:100%;padding:.65rem;font-size:1rem;border:1px solid #888;border-radius:8px}
input:focus,select:focus,button:focus,a:focus{outline:3px solid #2563eb;outline-offset:2px}
fieldset{border:0;padding:0;margin:0 0 .5rem}
legend{font-weight:700;margin-bottom:.25rem}
.methods label{display:flex;gap:.5rem;align-items:center;font-weight:normal;margin:.35rem 0}
button{width:100%;margin-top:1rem;padding:.8rem;font-size:1.05rem;font-weight:700;color:#fff;background:#1d4ed8;border:0;border-radius:8px;cursor:pointer}
.notice{border-radius:8px;padding:.75rem;margin:0 0 1rem}
.notice.error{background:#fde8e8;color:#7f1d1d}
.notice.info{background:#e6f0ff;color:#1e3a8a}
.state{font-size:1.1rem}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.m0{margin:0}
.expiry{margin:.75rem 0 0}
.expiry strong{font-variant-numeric:tabular-nums}
time,.expiry strong{unicode-bidi:isolate}
.qr{margin:.75rem 0;text-align:center}
.qr svg{max-width:100%;height:auto}
.qr code{display:block;word-break:break-all;font-size:.85rem}
.hint{font-size:.9rem;color:#555;margin:.25rem 0 0}
@media (max-width:480px){main{padding:.5rem}.card{padding:1rem}}
`;

function layout(
  text: PageText,
  title: string,
  nonce: string,
  body: string,
  script = '',
  brand?: PageContext['brand'],
): string {
  // The live region sits outside <main>, which the poller replaces, so screen readers hear the new status.
  return pageShell({
    lang: text.locale,
    dir: text.dir,
    title,
    nonce,
    style: `${STYLE}${brandStyle(brand)}`,
    main: body,
    after: `<p id="live-status" class="sr-only" aria-live="polite"></p>\n${script}`,
  });
}

function header(session: CheckoutSession, ctx: PageContext): string {
  const testMode = session.id.startsWith('cs_test_');
  return markup`
    <header>
      ${brandLogo(ctx.organizationName, ctx.brand)}
      <p class="muted m0">${testMode ? `<span class="badge">${e(ctx.text.t('testMode'))}</span> ` : ''}${e(ctx.text.t('checkout'))}</p>
      <h1>${e(ctx.organizationName)}</h1>
    </header>`;
}

/** The notice the page was sent back with, and a destination that no longer takes payments. */
function notices(ctx: PageContext): string {
  const kind = ctx.notice === 'paid_partial' ? 'info' : 'error';
  const words = ctx.notice && ctx.text.t(NOTICES[ctx.notice], { minimum: ctx.text.amount(1) });
  const notice = words ? `<div class="notice ${kind}" role="alert" data-testid="notice">${e(words)}</div>` : '';
  const unavailable =
    ctx.destinationUnavailable && ctx.notice !== 'destination_unavailable'
      ? `<div class="notice error" role="status" data-testid="destination-unavailable">${e(ctx.text.t('unavailable'))}</div>`
      : '';
  return notice + unavailable;
}

function failedAttempts(n: number, text: PageText): string {
  if (n === 0) return '';
  return `<p class="muted" data-testid="failed-attempts">${e(text.plural('failedAttempts', n))}</p>`;
}

function expiry(session: CheckoutSession, ctx: PageContext): string {
  const { text } = ctx;
  const left = text.timeLeft(Date.parse(session.expiresAt) - ctx.now.getTime());
  // The time goes into the sentence as a <time> element: the catalog's text is split around its placeholder.
  const [before = '', after = ''] = text.t('expiresAt').split('{time}');
  return markup`
    <p class="expiry">${e(text.t('timeLeft'))} <strong data-testid="countdown" role="timer"
      data-expires-at="${e(session.expiresAt)}">${e(left)}</strong> <span class="hint">${e(before)}<time
      datetime="${e(session.expiresAt)}">${e(text.dateTime(session.expiresAt))}</time>${e(after)}</span></p>`;
}

export function renderPendingPage(session: CheckoutSession, ctx: PageContext): string {
  const due = amountDue(session.order.amounts);
  const { text } = ctx;
  const liveNote = session.id.startsWith('cs_live_')
    ? markup`
      ${ctx.methods.some((m) => PAYMENT_METHOD_TABLE[m].showsDestination) ? paymentQr(ctx) : ''}
      <p class="muted">${e(text.t('processorNote'))}</p>`
    : '';
  const body = markup`
    ${header(session, ctx)}
    ${notices(ctx)}
    ${summary(session, text)}
    <section class="card" aria-labelledby="pay-h">
      <h2 id="pay-h">${e(text.t('pay', { amount: text.amount(due) }))}</h2>
      <p class="muted m0" data-testid="status" data-status="pending">${e(text.t('awaitingPayment'))}</p>
      ${failedAttempts(session.failedAttempts, text)}
      ${liveNote || payForm(session, ctx, due)}
      ${expiry(session, ctx)}
    </section>`;
  const script = pollScript(ctx.nonce, session.id, ctx.version, ctx.now, text.locale);
  return layout(text, text.t('payTitle', { merchant: ctx.organizationName }), ctx.nonce, body, script, ctx.brand);
}

export function renderTerminalPage(session: CheckoutSession, ctx: PageContext): string {
  const { text: t } = ctx;
  const titles = {
    completed: [t.t('completedTitle'), t.t('completedText')],
    expired: [t.t('expiredTitle'), t.t('expiredText')],
    cancelled: [t.t('cancelledTitle'), t.t('cancelledText')],
    pending: [t.t('checkout'), ''],
  } as const;
  const [title, text] = titles[session.status];
  const back =
    session.status === 'completed' && session.successUrl
      ? `<p><a href="${e(session.successUrl)}">${e(t.t('returnTo', { merchant: ctx.organizationName }))}</a></p>`
      : '';
  const body = markup`
    ${header(session, ctx)}
    <section class="card" aria-live="polite">
      <h2 class="state" data-testid="status" data-status="${e(session.status)}">${e(title)}</h2>
      <p>${e(text)}</p>
      ${back}
    </section>
    ${summary(session, t)}`;
  return layout(t, t.t('terminalTitle', { title, merchant: ctx.organizationName }), ctx.nonce, body, '', ctx.brand);
}

/** A page with a title and a sentence, no session: a checkout not found, a form that expired. */
export function renderMessagePage(nonce: string, t: PageText, message: 'notFound' | 'formExpired'): string {
  const title = t.t(`${message}Title`);
  return layout(
    t,
    title,
    nonce,
    `<section class="card"><h1>${e(title)}</h1><p>${e(t.t(`${message}Text`))}</p></section>`,
  );
}
