import type { CheckoutSession, PaymentMethod } from '@checkout/contracts';
import { escapeHtml as e, formatAmount, markup } from '@checkout/html';
import { PAYMENT_METHOD_TABLE, type FormField } from '../../domain/payment-methods';
import type { PageContext } from './page-context';

// The pending page's form (test mode): the inputs requireFromCustomer asks for, a radio per method offered and
// each method's panel, shown when it is chosen (the page's script hides the others).

/** The form, or why there is none. */
export function payForm(session: CheckoutSession, ctx: PageContext, due: number): string {
  const methods = ctx.methods;
  if (methods.length === 0)
    return '<p>No payment method is available for this checkout. Please contact the merchant.</p>';
  const radios = methods
    .map((m, i) => {
      const checked = i === 0 ? ' checked' : '';
      return `<label><input type="radio" name="method" value="${m}"${checked}> ${e(PAYMENT_METHOD_TABLE[m].label)}</label>`;
    })
    .join('\n');
  return markup`
    <form method="post" action="/checkout/${e(session.id)}/pay" novalidate>
      <input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">
      ${requiredInputs(session, ctx)}
      <fieldset class="methods">
        <legend>Payment method</legend>
        ${radios}
      </fieldset>
      ${methods.map((m) => methodPanel(m, ctx, due)).join('\n')}
      <button type="submit">Pay ${formatAmount(due)}</button>
    </form>`;
}

function textField(id: string, label: string, value: string | undefined, required: boolean, autocomplete: string) {
  return markup`
    <label for="${id}">${label}${required ? '' : ' <span class="muted">(optional)</span>'}</label>
    <input type="text" id="${id}" name="${id}" autocomplete="${autocomplete}" ${required ? 'required ' : ''}value="${e(value)}">`;
}

function shippingAddress(a: PageContext['collected']['shippingAddress']): string {
  return markup`
    <fieldset>
      <legend>Shipping address</legend>
      ${textField('shipName', 'Full name', a?.name, false, 'shipping name')}
      ${textField('line1', 'Address line 1', a?.line1, true, 'shipping address-line1')}
      ${textField('line2', 'Address line 2', a?.line2, false, 'shipping address-line2')}
      ${textField('city', 'City', a?.city, true, 'shipping address-level2')}
      ${textField('state', 'State / region', a?.state, false, 'shipping address-level1')}
      ${textField('postalCode', 'Postal code', a?.postalCode, false, 'shipping postal-code')}
      <label for="country">Country code</label>
      <input type="text" id="country" name="country" autocomplete="shipping country" required maxlength="2"
        placeholder="US" value="${e(a?.country)}">
    </fieldset>`;
}

function requiredInputs(session: CheckoutSession, ctx: PageContext): string {
  const req = session.requireFromCustomer;
  if (!req.phone && !req.shippingAddress && !req.location) return '';
  const c = ctx.collected;
  const parts: string[] = ['<fieldset><legend>Your details</legend>'];
  if (req.phone)
    parts.push(markup`
      <label for="phone">Phone number</label>
      <input type="tel" id="phone" name="phone" autocomplete="tel" required value="${e(c.phone)}">`);
  if (req.shippingAddress) parts.push(shippingAddress(c.shippingAddress));
  if (req.location) {
    const options = ctx.locations
      .map((l) => `<option value="${e(l.id)}"${c.locationId === l.id ? ' selected' : ''}>${e(l.name)}</option>`)
      .join('');
    parts.push(markup`
      <label for="locationId">Location</label>
      <select id="locationId" name="locationId" required>
        <option value="">Choose a location</option>
        ${options}
      </select>`);
  }
  parts.push('</fieldset>');
  return parts.join('\n');
}

/** A method's panel of the test-mode form, from its entry in the payment methods table; shown when it is chosen. */
function methodPanel(method: PaymentMethod, ctx: PageContext, due: number): string {
  const entry = PAYMENT_METHOD_TABLE[method];
  const input = (f: FormField) => {
    const autocomplete = f.autocomplete ? ` autocomplete="${e(f.autocomplete)}"` : '';
    const placeholder = f.placeholder ? ` placeholder="${e(f.placeholder)}"` : '';
    const value = f.prefillDue ? ` value="${e((due / 100).toFixed(2))}"` : '';
    return markup`
      <label for="${e(f.name)}">${e(f.label)}</label>
      <input type="text" id="${e(f.name)}" name="${e(f.name)}" inputmode="${f.inputMode}"${autocomplete}${placeholder}${value}>`;
  };
  const hint = entry.hint ? `<p class="hint">${e(entry.hint(formatAmount(due)))}</p>` : '';
  const qr = entry.showsDestination ? paymentQr(ctx) : '';
  return `<div data-method="${method}">${qr}${entry.fields.map(input).join('')}${hint}</div>`;
}

/** Where a stablecoin payment goes: the address's QR code, and the address itself. */
export function paymentQr(ctx: PageContext): string {
  if (!ctx.payment) return '';
  return markup`
    <figure class="qr" data-testid="payment-qr">
      ${ctx.payment.qrSvg}
      <figcaption>Send the payment to <code data-testid="payment-address">${e(ctx.payment.address)}</code></figcaption>
    </figure>`;
}
