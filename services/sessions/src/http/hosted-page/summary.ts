import { amountDue, type CheckoutSession } from '@checkout/contracts';
import { escapeHtml as e, markup } from '@checkout/html';
import type { PageText } from './i18n/page-text';

/** The order summary every hosted page shows: items, discounts, taxes, the total, and what is paid and due. */
export function summary(session: CheckoutSession, text: PageText): string {
  const { order } = session;
  const rows = order.items
    .map(
      (i) => markup`
        <tr>
          <td>${e(i.name)}${quantity(i.quantity, text)}</td>
          <td class="num">${e(text.amount(i.totalPrice))}</td>
        </tr>`,
    )
    .join('');
  const discounts = order.discounts
    .map(
      (d) => markup`
        <tr>
          <td>${e(d.name)}${d.type === 'percentage' ? ` <span class="muted">(${e(text.percent(d.amount))})</span>` : ''}</td>
          <td class="num">${e(text.amount(-discountAmount(d, order.amounts.subtotal)))}</td>
        </tr>`,
    )
    .join('');
  const taxes = order.taxes
    .map((t) => `<tr><td>${e(t.name)}</td><td class="num">${e(text.amount(t.amount))}</td></tr>`)
    .join('');
  return markup`
    <section class="card" aria-labelledby="summary-h">
      <h2 id="summary-h">${e(text.t('orderSummary'))}</h2>
      <table>
        <caption class="sr-only">${e(text.t('summaryCaption'))}</caption>
        <tbody>
          ${rows}
          <tr>
            <td class="muted">${e(text.t('subtotal'))}</td>
            <td class="num">${e(text.amount(order.amounts.subtotal))}</td>
          </tr>
          ${discounts}${taxes}
          <tr class="total">
            <th scope="row">${e(text.t('total'))}</th>
            <td class="num" data-testid="total">${e(text.amount(order.amounts.total))}</td>
          </tr>
          ${order.amounts.paid > 0 ? paidAndDue(order.amounts.paid, amountDue(order.amounts), text) : ''}
        </tbody>
      </table>
    </section>`;
}

function quantity(n: number, text: PageText): string {
  return n > 1 ? ` <span class="muted">${e(text.t('quantity', { quantity: text.number(n) }))}</span>` : '';
}

function paidAndDue(paid: number, due: number, text: PageText): string {
  return markup`
    <tr><td>${e(text.t('paid'))}</td><td class="num" data-testid="paid">${e(text.amount(paid))}</td></tr>
    <tr>
      <td><strong>${e(text.t('remaining'))}</strong></td>
      <td class="num" data-testid="remaining"><strong>${e(text.amount(due))}</strong></td>
    </tr>`;
}

function discountAmount(d: { type: string; amount: number }, subtotal: number): number {
  return d.type === 'fixed' ? d.amount : Math.floor((subtotal * d.amount * 2 + 100) / 200);
}
