import { amountDue, type CheckoutSession, type PaymentMethod } from '@checkout/contracts';
import { PAYMENT_METHOD_TABLE, type FormField, type NoticeCode } from '../../domain/payment-methods';
import { escapeHtml as e, formatUsd } from './html';
import { formatTimeLeft } from './countdown';
import type { CollectedInputs } from '../../store/session.document';

/** The words of each notice the page is sent back with (domain/payment-methods.ts names them). */
export const NOTICES: Record<NoticeCode, string> = {
  declined: 'Your card was declined. No money was taken. Try another card.',
  not_test_card:
    'That is not a test card. In test mode, use 4242 4242 4242 4242 (succeeds) or 4000 0000 0000 0002 (declined).',
  card_required: 'Enter a card number.',
  required: 'Please fill in the required details below.',
  amount: 'Enter an amount to pay, at least $0.01.',
  method: 'That payment method is not available for this checkout.',
  paid_partial: 'Payment received. The rest is still due.',
  not_payable: 'This checkout can no longer take payment.',
  destination_unavailable:
    'Stablecoin payments to this merchant are unavailable. No money was taken. Choose another method or contact the merchant.',
};

export interface PageContext {
  nonce: string;
  csrfToken: string;
  organizationName: string;
  /** The methods offered (D26), in the payment methods table's order. */
  methods: PaymentMethod[];
  collected: CollectedInputs;
  locations: { id: string; name: string }[];
  notice?: NoticeCode | undefined;
  /** Opaque token of the displayed state; the poller swaps the page content in when /state reports another. */
  version: string;
  /** The server's clock when rendering: the countdown corrects the browser's clock by it. */
  now: Date;
  /** Where a stablecoin payment goes, with its QR code (an inline SVG), when the order has a destination. */
  payment?: { address: string; qrSvg: string } | undefined;
  /** The order's destination no longer takes payments: the page says so; stablecoin is not offered. */
  destinationUnavailable?: boolean;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:34rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:.25rem 0 1rem}
h2{font-size:1.05rem;margin:0 0 .75rem}
.badge{display:inline-block;background:#fff4ce;color:#5c4500;border-radius:6px;padding:.1rem .5rem;font-size:.8rem;font-weight:600}
table{width:100%;border-collapse:collapse}
td,th{padding:.35rem 0;text-align:left;vertical-align:top;font-weight:normal}
td.num,th.num{text-align:right;white-space:nowrap}
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
.qr{margin:.75rem 0;text-align:center}
.qr svg{max-width:100%;height:auto}
.qr code{display:block;word-break:break-all;font-size:.85rem}
.hint{font-size:.9rem;color:#555;margin:.25rem 0 0}
@media (max-width:480px){main{padding:.5rem}.card{padding:1rem}}
`;

function layout(title: string, nonce: string, body: string, script = ''): string {
  // The live region sits outside <main>, which the poller replaces, so screen readers hear the new status.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${e(title)}</title>
<style nonce="${e(nonce)}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
<p id="live-status" class="sr-only" aria-live="polite"></p>
${script}
</body>
</html>`;
}

function summary(session: CheckoutSession): string {
  const { order } = session;
  const rows = order.items
    .map(
      (i) =>
        `<tr><td>${e(i.name)}${i.quantity > 1 ? ` <span class="muted">× ${e(i.quantity)}</span>` : ''}</td><td class="num">${formatUsd(i.totalPrice)}</td></tr>`,
    )
    .join('');
  const discounts = order.discounts
    .map(
      (d) =>
        `<tr><td>${e(d.name)}${d.type === 'percentage' ? ` <span class="muted">(${e(d.amount)}%)</span>` : ''}</td><td class="num">−${formatUsd(discountAmount(d, order.amounts.subtotal))}</td></tr>`,
    )
    .join('');
  const taxes = order.taxes
    .map((t) => `<tr><td>${e(t.name)}</td><td class="num">${formatUsd(t.amount)}</td></tr>`)
    .join('');
  const paid = order.amounts.paid;
  const due = amountDue(order.amounts);
  return `<section class="card" aria-labelledby="summary-h">
<h2 id="summary-h">Order summary</h2>
<table>
<caption class="sr-only">Items, discounts, taxes and total</caption>
<tbody>${rows}
<tr><td class="muted">Subtotal</td><td class="num">${formatUsd(order.amounts.subtotal)}</td></tr>
${discounts}${taxes}
<tr class="total"><th scope="row">Total</th><td class="num" data-testid="total">${formatUsd(order.amounts.total)}</td></tr>
${paid > 0 ? `<tr><td>Paid</td><td class="num" data-testid="paid">${formatUsd(paid)}</td></tr><tr><td><strong>Remaining</strong></td><td class="num" data-testid="remaining"><strong>${formatUsd(due)}</strong></td></tr>` : ''}
</tbody>
</table>
</section>`;
}

function discountAmount(d: { type: string; amount: number }, subtotal: number): number {
  return d.type === 'fixed' ? d.amount : Math.floor((subtotal * d.amount * 2 + 100) / 200);
}

function header(session: CheckoutSession, ctx: PageContext): string {
  const testMode = session.id.startsWith('cs_test_');
  return `<header><p class="muted m0">${testMode ? '<span class="badge">Test mode</span> ' : ''}Checkout</p><h1>${e(ctx.organizationName)}</h1></header>`;
}

function pollScript(nonce: string, sessionId: string, version: string, now: Date): string {
  // Live without a reload: the countdown ticks every second (corrected by the server's clock), and when /state
  // reports another version (a payment from elsewhere, an expiry, a cancel) the page's own HTML is fetched and its
  // <main> swapped in, so what the customer sees is always what the server renders. At zero it asks at once.
  return `<script nonce="${e(nonce)}">
(function(){
  var stateUrl = ${JSON.stringify(`/checkout/${sessionId}/state`)}, pageUrl = ${JSON.stringify(`/checkout/${sessionId}`)};
  var seen = ${JSON.stringify(version)}, skew = ${now.getTime()} - Date.now(), polling = false, timer;
  var formatTimeLeft = ${formatTimeLeft.toString()};
  function byTestId(id){ return document.querySelector('[data-testid="' + id + '"]'); }
  function bindMethods(){
    var radios = document.querySelectorAll('input[name=method]');
    function sync(){
      var m = (document.querySelector('input[name=method]:checked') || {}).value;
      document.querySelectorAll('[data-method]').forEach(function(el){ el.hidden = el.getAttribute('data-method') !== m; });
    }
    radios.forEach(function(r){ r.addEventListener('change', sync); });
    sync();
  }
  function tick(){
    var c = byTestId('countdown');
    if (!c) return;
    var left = Date.parse(c.getAttribute('data-expires-at')) - (Date.now() + skew);
    c.textContent = formatTimeLeft(left);
    if (left <= 0 && !c.hasAttribute('data-ended')) { c.setAttribute('data-ended', ''); poll(); }
  }
  function swap(){
    return fetch(pageUrl, {cache: 'no-store', credentials: 'same-origin'}).then(function(r){ return r.ok ? r.text() : null; }).then(function(html){
      var next = html && new DOMParser().parseFromString(html, 'text/html').querySelector('main');
      var main = document.querySelector('main');
      if (!next || !main) return;
      main.replaceWith(next);
      history.replaceState(null, '', pageUrl);
      var status = byTestId('status');
      var live = document.getElementById('live-status');
      if (status && live) live.textContent = status.textContent;
      bindMethods();
      tick();
    });
  }
  function poll(){
    if (polling) return;
    polling = true;
    clearTimeout(timer);
    fetch(stateUrl, {cache: 'no-store', credentials: 'same-origin'}).then(function(r){ return r.ok ? r.json() : null; })
      .then(function(s){ return s && s.version !== seen ? swap().then(function(){ seen = s.version; return s; }) : s; })
      .catch(function(){ return null; })
      .then(function(s){ polling = false; if (!s || s.status === 'pending') timer = setTimeout(poll, 1500); });
  }
  bindMethods();
  tick();
  setInterval(tick, 1000);
  timer = setTimeout(poll, 1500);
})();
</script>`;
}

function requiredInputs(session: CheckoutSession, ctx: PageContext): string {
  const req = session.requireFromCustomer;
  if (!req.phone && !req.shippingAddress && !req.location) return '';
  const c = ctx.collected;
  const a = c.shippingAddress;
  const parts: string[] = ['<fieldset><legend>Your details</legend>'];
  if (req.phone) {
    parts.push(
      `<label for="phone">Phone number</label><input type="tel" id="phone" name="phone" autocomplete="tel" required value="${e(c.phone)}">`,
    );
  }
  if (req.shippingAddress) {
    const field = (id: string, label: string, value: string | undefined, required: boolean, autocomplete: string) =>
      `<label for="${id}">${label}${required ? '' : ' <span class="muted">(optional)</span>'}</label><input type="text" id="${id}" name="${id}" autocomplete="${autocomplete}" ${required ? 'required ' : ''}value="${e(value)}">`;
    parts.push(
      '<fieldset><legend>Shipping address</legend>',
      field('shipName', 'Full name', a?.name, false, 'shipping name'),
      field('line1', 'Address line 1', a?.line1, true, 'shipping address-line1'),
      field('line2', 'Address line 2', a?.line2, false, 'shipping address-line2'),
      field('city', 'City', a?.city, true, 'shipping address-level2'),
      field('state', 'State / region', a?.state, false, 'shipping address-level1'),
      field('postalCode', 'Postal code', a?.postalCode, false, 'shipping postal-code'),
      `<label for="country">Country code</label><input type="text" id="country" name="country" autocomplete="shipping country" required maxlength="2" placeholder="US" value="${e(a?.country)}">`,
      '</fieldset>',
    );
  }
  if (req.location) {
    const options = ctx.locations
      .map((l) => `<option value="${e(l.id)}"${c.locationId === l.id ? ' selected' : ''}>${e(l.name)}</option>`)
      .join('');
    parts.push(
      `<label for="locationId">Location</label><select id="locationId" name="locationId" required><option value="">Choose a location</option>${options}</select>`,
    );
  }
  parts.push('</fieldset>');
  return parts.join('\n');
}

export function renderPendingPage(session: CheckoutSession, ctx: PageContext): string {
  const due = amountDue(session.order.amounts);
  const methods = ctx.methods;
  const notice = ctx.notice
    ? `<div class="notice ${ctx.notice === 'paid_partial' ? 'info' : 'error'}" role="alert" data-testid="notice">${e(NOTICES[ctx.notice])}</div>`
    : '';
  const unavailable =
    ctx.destinationUnavailable && ctx.notice !== 'destination_unavailable'
      ? `<div class="notice error" role="status" data-testid="destination-unavailable">${e('Stablecoin payments to this merchant are unavailable. Choose another method or contact the merchant.')}</div>`
      : '';
  const attempts =
    session.failedAttempts > 0
      ? `<p class="muted" data-testid="failed-attempts">${session.failedAttempts} declined payment attempt${session.failedAttempts === 1 ? '' : 's'} so far.</p>`
      : '';
  const form =
    methods.length === 0
      ? '<p>No payment method is available for this checkout. Please contact the merchant.</p>'
      : `<form method="post" action="/checkout/${e(session.id)}/pay" novalidate>
<input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">
${requiredInputs(session, ctx)}
<fieldset class="methods"><legend>Payment method</legend>
${methods.map((m, i) => `<label><input type="radio" name="method" value="${m}"${i === 0 ? ' checked' : ''}> ${e(PAYMENT_METHOD_TABLE[m].label)}</label>`).join('\n')}
</fieldset>
${methods.map((m) => methodPanel(m, ctx, due)).join('\n')}
<button type="submit">Pay ${formatUsd(due)}</button>
</form>`;
  const liveNote = session.id.startsWith('cs_live_')
    ? `${methods.some((m) => PAYMENT_METHOD_TABLE[m].showsDestination) ? paymentQr(ctx) : ''}<p class="muted">Payments are processed by our payment processor; this page updates when your payment is confirmed.</p>`
    : '';
  const body = `${header(session, ctx)}
${notice}${unavailable}
${summary(session)}
<section class="card" aria-labelledby="pay-h">
<h2 id="pay-h">Pay ${formatUsd(due)}</h2>
<p class="muted m0" data-testid="status" data-status="pending">Awaiting payment</p>
${attempts}
${liveNote || form}
<p class="expiry">Time left to pay: <strong data-testid="countdown" role="timer" data-expires-at="${e(session.expiresAt)}">${formatTimeLeft(Date.parse(session.expiresAt) - ctx.now.getTime())}</strong>
<span class="hint">(expires at <time datetime="${e(session.expiresAt)}">${e(session.expiresAt.replace('T', ' ').slice(0, 16))} UTC</time>)</span></p>
</section>`;
  return layout(
    `Pay ${ctx.organizationName}`,
    ctx.nonce,
    body,
    pollScript(ctx.nonce, session.id, ctx.version, ctx.now),
  );
}

/** A method's panel of the test-mode form, from its entry in the payment methods table; shown when it is chosen. */
function methodPanel(method: PaymentMethod, ctx: PageContext, due: number): string {
  const entry = PAYMENT_METHOD_TABLE[method];
  const input = (f: FormField) =>
    `<label for="${e(f.name)}">${e(f.label)}</label><input type="text" id="${e(f.name)}" name="${e(f.name)}" inputmode="${f.inputMode}"${f.autocomplete ? ` autocomplete="${e(f.autocomplete)}"` : ''}${f.placeholder ? ` placeholder="${e(f.placeholder)}"` : ''}${f.prefillDue ? ` value="${e((due / 100).toFixed(2))}"` : ''}>`;
  const hint = entry.hint ? `<p class="hint">${e(entry.hint(formatUsd(due)))}</p>` : '';
  return `<div data-method="${method}">${entry.showsDestination ? paymentQr(ctx) : ''}${entry.fields.map(input).join('')}${hint}</div>`;
}

function paymentQr(ctx: PageContext): string {
  if (!ctx.payment) return '';
  return `<figure class="qr" data-testid="payment-qr">${ctx.payment.qrSvg}<figcaption>Send the payment to <code data-testid="payment-address">${e(ctx.payment.address)}</code></figcaption></figure>`;
}

export function renderTerminalPage(session: CheckoutSession, ctx: PageContext): string {
  const titles = {
    completed: ['Payment received', 'Thank you! Your payment was received.'],
    expired: [
      'Checkout expired',
      'This checkout has expired. No payment was taken for the remaining amount. Please return to the merchant to start again.',
    ],
    cancelled: ['Checkout cancelled', 'This checkout was cancelled by the merchant. No further payment can be made.'],
    pending: ['Checkout', ''],
  } as const;
  const [title, text] = titles[session.status];
  const back =
    session.status === 'completed' && session.successUrl
      ? `<p><a href="${e(session.successUrl)}">Return to ${e(ctx.organizationName)}</a></p>`
      : '';
  const body = `${header(session, ctx)}
<section class="card" aria-live="polite">
<h2 class="state" data-testid="status" data-status="${e(session.status)}">${e(title)}</h2>
<p>${e(text)}</p>
${back}
</section>
${summary(session)}`;
  return layout(`${title} · ${ctx.organizationName}`, ctx.nonce, body);
}

export function renderMessagePage(nonce: string, title: string, text: string): string {
  return layout(title, nonce, `<section class="card"><h1>${e(title)}</h1><p>${e(text)}</p></section>`);
}
