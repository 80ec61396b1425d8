import { amountDue, type CheckoutSession } from '@checkout/contracts';
import { escapeHtml as e, formatAmount, markup } from '@checkout/html';

/** The order summary every hosted page shows: items, discounts, taxes, the total, and what is paid and due. */
export function summary(session: CheckoutSession): string {
  const { order } = session;
  const rows = order.items
    .map(
      (i) => markup`
        <tr>
          <td>${e(i.name)}${i.quantity > 1 ? ` <span class="muted">× ${e(i.quantity)}</span>` : ''}</td>
          <td class="num">${formatAmount(i.totalPrice)}</td>
        </tr>`,
    )
    .join('');
  const discounts = order.discounts
    .map(
      (d) => markup`
        <tr>
          <td>${e(d.name)}${d.type === 'percentage' ? ` <span class="muted">(${e(d.amount)}%)</span>` : ''}</td>
          <td class="num">−${formatAmount(discountAmount(d, order.amounts.subtotal))}</td>
        </tr>`,
    )
    .join('');
  const taxes = order.taxes
    .map((t) => `<tr><td>${e(t.name)}</td><td class="num">${formatAmount(t.amount)}</td></tr>`)
    .join('');
  return markup`
    <section class="card" aria-labelledby="summary-h">
      <h2 id="summary-h">Order summary</h2>
      <table>
        <caption class="sr-only">Items, discounts, taxes and total</caption>
        <tbody>
          ${rows}
          <tr><td class="muted">Subtotal</td><td class="num">${formatAmount(order.amounts.subtotal)}</td></tr>
          ${discounts}${taxes}
          <tr class="total">
            <th scope="row">Total</th>
            <td class="num" data-testid="total">${formatAmount(order.amounts.total)}</td>
          </tr>
          ${order.amounts.paid > 0 ? paidAndDue(order.amounts.paid, amountDue(order.amounts)) : ''}
        </tbody>
      </table>
    </section>`;
}

function paidAndDue(paid: number, due: number): string {
  return markup`
    <tr><td>Paid</td><td class="num" data-testid="paid">${formatAmount(paid)}</td></tr>
    <tr>
      <td><strong>Remaining</strong></td>
      <td class="num" data-testid="remaining"><strong>${formatAmount(due)}</strong></td>
    </tr>`;
}

function discountAmount(d: { type: string; amount: number }, subtotal: number): number {
  return d.type === 'fixed' ? d.amount : Math.floor((subtotal * d.amount * 2 + 100) / 200);
}
