import type { CheckoutSession, PaymentMethod } from '@checkout/contracts';
import { escapeHtml as e, markup } from '@checkout/html';
import { PAYMENT_METHOD_TABLE, type FormField } from '../../domain/payment-methods';
import type { TextKey } from './i18n/catalog';
import type { PageContext } from './page-context';

// The pending page's form (test mode): the inputs requireFromCustomer asks for, a radio per method offered and
// each method's panel, shown when it is chosen (the page's script hides the others).

/** A method's words on the page: its name and the line under its inputs (the table says whether it has one). */
const METHOD_TEXT: Record<PaymentMethod, { label: TextKey; hint?: TextKey }> = {
  card: { label: 'methodCard' },
  stablecoin: { label: 'methodStablecoin', hint: 'hintStablecoin' },
  stored_value: { label: 'methodStoredValue', hint: 'hintStoredValue' },
};

/** The label of each input of a method's panel, by the input's name (an input without one shows the table's). */
const FIELD_TEXT: Readonly<Record<string, TextKey>> = { cardNumber: 'cardNumber', amount: 'amountToPay' };

/** The form, or why there is none. */
export function payForm(session: CheckoutSession, ctx: PageContext, due: number): string {
  const { methods, text } = ctx;
  if (methods.length === 0) return `<p>${e(text.t('noMethods'))}</p>`;
  const radios = methods
    .map((m, i) => {
      const checked = i === 0 ? ' checked' : '';
      return `<label><input type="radio" name="method" value="${m}"${checked}> ${e(text.t(METHOD_TEXT[m].label))}</label>`;
    })
    .join('\n');
  return markup`
    <form method="post" action="/checkout/${e(session.id)}/pay" novalidate>
      <input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">
      ${requiredInputs(session, ctx)}
      <fieldset class="methods">
        <legend>${e(text.t('paymentMethod'))}</legend>
        ${radios}
      </fieldset>
      ${methods.map((m) => methodPanel(m, ctx, due)).join('\n')}
      <button type="submit">${e(text.t('pay', { amount: text.amount(due) }))}</button>
    </form>`;
}

/** A text input of the customer's details; `label` is the catalog's, `optional` its "(optional)" when not required. */
function textField(
  id: string,
  label: string,
  value: string | undefined,
  optional: string | null,
  autocomplete: string,
) {
  const required = optional === null;
  return markup`
    <label for="${id}">${e(label)}${required ? '' : ` <span class="muted">${e(optional)}</span>`}</label>
    <input type="text" id="${id}" name="${id}" autocomplete="${autocomplete}" ${required ? 'required ' : ''}value="${e(value)}">`;
}

function shippingAddress(a: PageContext['collected']['shippingAddress'], ctx: PageContext): string {
  const { t } = ctx.text;
  const optional = t('optional');
  return markup`
    <fieldset>
      <legend>${e(t('shippingAddress'))}</legend>
      ${textField('shipName', t('fullName'), a?.name, optional, 'shipping name')}
      ${textField('line1', t('addressLine1'), a?.line1, null, 'shipping address-line1')}
      ${textField('line2', t('addressLine2'), a?.line2, optional, 'shipping address-line2')}
      ${textField('city', t('city'), a?.city, null, 'shipping address-level2')}
      ${textField('state', t('region'), a?.state, optional, 'shipping address-level1')}
      ${textField('postalCode', t('postalCode'), a?.postalCode, optional, 'shipping postal-code')}
      <label for="country">${e(t('countryCode'))}</label>
      <input type="text" id="country" name="country" autocomplete="shipping country" required maxlength="2"
        placeholder="US" value="${e(a?.country)}">
    </fieldset>`;
}

function requiredInputs(session: CheckoutSession, ctx: PageContext): string {
  const req = session.requireFromCustomer;
  if (!req.phone && !req.shippingAddress && !req.location) return '';
  const c = ctx.collected;
  const { t } = ctx.text;
  const parts: string[] = [`<fieldset><legend>${e(t('yourDetails'))}</legend>`];
  if (req.phone)
    parts.push(markup`
      <label for="phone">${e(t('phone'))}</label>
      <input type="tel" id="phone" name="phone" autocomplete="tel" required value="${e(c.phone)}">`);
  if (req.shippingAddress) parts.push(shippingAddress(c.shippingAddress, ctx));
  if (req.location) {
    const options = ctx.locations
      .map((l) => `<option value="${e(l.id)}"${c.locationId === l.id ? ' selected' : ''}>${e(l.name)}</option>`)
      .join('');
    parts.push(markup`
      <label for="locationId">${e(t('location'))}</label>
      <select id="locationId" name="locationId" required>
        <option value="">${e(t('chooseLocation'))}</option>
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
    const key = FIELD_TEXT[f.name];
    const autocomplete = f.autocomplete ? ` autocomplete="${e(f.autocomplete)}"` : '';
    const placeholder = f.placeholder ? ` placeholder="${e(f.placeholder)}"` : '';
    const value = f.prefillDue ? ` value="${e((due / 100).toFixed(2))}"` : '';
    return markup`
      <label for="${e(f.name)}">${e(key ? ctx.text.t(key) : f.label)}</label>
      <input type="text" id="${e(f.name)}" name="${e(f.name)}" inputmode="${f.inputMode}"${autocomplete}${placeholder}${value}>`;
  };
  const hintKey = METHOD_TEXT[method].hint;
  const hint = hintKey ? `<p class="hint">${e(ctx.text.t(hintKey, { amount: ctx.text.amount(due) }))}</p>` : '';
  const qr = entry.showsDestination ? paymentQr(ctx) : '';
  return `<div data-method="${method}">${qr}${entry.fields.map(input).join('')}${hint}</div>`;
}

/** Where a stablecoin payment goes: the address's QR code, and the address itself. */
export function paymentQr(ctx: PageContext): string {
  if (!ctx.payment) return '';
  return markup`
    <figure class="qr" data-testid="payment-qr">
      ${ctx.payment.qrSvg}
      <figcaption>
        ${e(ctx.text.t('sendPaymentTo'))}
        <code dir="ltr" data-testid="payment-address">${e(ctx.payment.address)}</code>
      </figcaption>
    </figure>`;
}
