import { REFUND_REASONS, type Order, type Refund } from '@checkout/contracts';
import { escapeHtml as e, formatAmount, markup } from '@checkout/html';
import { timeTag } from './html';
import { row, scrollTable, select, status, text } from './parts';

/** D48 on the order page: its refunds, newest first, and the Refund form (confirmed on a page of its own, D47). */
export function refundsSection(order: Order, refunds: readonly Refund[], refundable: number): string {
  const rows = refunds
    .map((r) =>
      row(`<code>${e(r.id)}</code>`, [
        `${status(r.status)}${r.failureReason ? ` (${e(r.failureReason.replace(/_/g, ' '))})` : ''}`,
        [e(formatAmount(r.amount, r.currency)), 'num'],
        [e(r.reason?.replace(/_/g, ' ') ?? '—'), 'hide-narrow'],
        [timeTag(r.createdAt), 'hide-narrow'],
      ]),
    )
    .join('');
  const table = scrollTable({
    caption: 'Refunds, newest first',
    columns: ['Refund', 'Status', ['Amount', 'num'], ['Reason', 'hide-narrow'], ['Created', 'hide-narrow']],
    rows,
    empty: 'No refunds.',
  });
  return table + (refundable > 0 ? refundForm(order, refundable) : '');
}

function refundForm(order: Order, refundable: number): string {
  return markup`
    <section class="card" aria-labelledby="h-refund">
      <h2 id="h-refund">Refund</h2>
      <p>Up to ${e(formatAmount(refundable, order.currency))} can be refunded (paid, less the refunds that succeeded or
        are pending).</p>
      <form method="get" action="/dashboard/orders/${e(order.id)}/refund" class="filters">
        ${text('amount', `Amount (${order.currency}; empty: all that is refundable)`, undefined, '12.50')}
        ${select('reason', 'Reason', REFUND_REASONS, undefined, 'None given')}
        <div><button type="submit">Refund…</button></div>
      </form>
    </section>`;
}
