import {
  amountDue,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  type Order,
  type OrderPageResponse,
  type OrderPayment,
  type Refund,
} from '@checkout/contracts';
import { escapeHtml as e, formatAmount, markup } from '@checkout/html';
import { timeTag } from './html';
import { layout, type PageContext } from './layout';
import { filterSection, notice, pager, row, scrollTable, select, status, text } from './parts';
import { refundsSection } from './refunds.render';

export interface OrderFilters {
  status?: string | undefined;
  paymentStatus?: string | undefined;
  locationId?: string | undefined;
  externalId?: string | undefined;
}

export function ordersPage(ctx: PageContext, list: OrderPageResponse, filters: OrderFilters, error?: string): string {
  const rows = list.orders
    .map((o) =>
      row(`<a href="/dashboard/orders/${e(o.id)}"><code>${e(o.id)}</code></a>`, [
        status(o.status),
        status(o.paymentStatus),
        [e(formatAmount(o.amounts.total, o.currency)), 'num'],
        [e(o.externalId ?? '—'), 'hide-narrow'],
        [timeTag(o.createdAt), 'hide-narrow'],
      ]),
    )
    .join('');
  const form = filterSection('/dashboard/orders', [
    select('status', 'Status', ORDER_STATUSES, filters.status),
    select('paymentStatus', 'Payment status', PAYMENT_STATUSES, filters.paymentStatus),
    text('locationId', 'Location id', filters.locationId, 'loc_test_…'),
    text('externalId', 'External id', filters.externalId),
  ]);
  const table = scrollTable({
    caption: 'Orders, newest first',
    columns: [
      'Order',
      'Status',
      'Payment',
      ['Total', 'num'],
      ['External id', 'hide-narrow'],
      ['Created', 'hide-narrow'],
    ],
    rows,
    empty: 'No orders match.',
    after: pager(list.pagination, '/dashboard/orders', { ...filters }),
  });
  const body = `<h1>Orders</h1>${notice(error, 'error')}${form}${table}`;
  return layout(ctx, 'Orders', body);
}

function summary(order: Order): string {
  const customer = order.customer ? `${order.customer.name ?? ''} ${order.customer.email}`.trim() : '—';
  return markup`
    <section class="card" aria-labelledby="h-summary">
      <h2 id="h-summary">Summary</h2>
      <dl class="facts">
        <dt>Status</dt><dd>${status(order.status)}</dd>
        <dt>Payment status</dt><dd>${status(order.paymentStatus)}</dd>
        <dt>External id</dt><dd>${e(order.externalId ?? '—')}</dd>
        <dt>Location</dt><dd>${e(order.locationId ?? '—')}</dd>
        <dt>Customer</dt><dd>${e(customer)}</dd>
        <dt>Created</dt><dd>${timeTag(order.createdAt)}</dd>
        <dt>Updated</dt><dd>${timeTag(order.updatedAt)}</dd>
        ${order.paidAt ? `<dt>Paid</dt><dd>${timeTag(order.paidAt)}</dd>` : ''}
      </dl>
    </section>`;
}

function amountsTable(order: Order): string {
  const a = order.amounts;
  const row = (label: string, amount: string) => `<tr><th scope="row">${label}</th><td class="num">${amount}</td></tr>`;
  const money = (cents: number) => e(formatAmount(cents, order.currency));
  return markup`
    <div class="card scroll" role="region" tabindex="0" aria-label="Amounts">
      <table>
        <caption>Amounts</caption>
        <tbody>
          ${row('Subtotal', money(a.subtotal))}${row('Tax', money(a.tax))}
          ${row('Discount', `−${money(a.discount)}`)}${row('Total', money(a.total))}
          ${row('Paid', money(a.paid))}${row('Due', money(amountDue(a)))}
          ${row('Refunded', money(a.refunded))}
        </tbody>
      </table>
    </div>`;
}

export function orderPage(
  ctx: PageContext,
  order: Order,
  payments: readonly OrderPayment[],
  refunds: { refunds: readonly Refund[]; refundable: number },
  message?: string,
): string {
  const money = (cents: number) => e(formatAmount(cents, order.currency));
  const items = order.items
    .map((i) =>
      row(e(i.name), [
        [String(i.quantity), 'num'],
        [money(i.unitPrice), 'num'],
        [money(i.totalPrice), 'num'],
      ]),
    )
    .join('');
  const paymentRows = payments
    .map((p) => row(`<code>${e(p.id)}</code>`, [e(p.method), [money(p.amount), 'num'], timeTag(p.appliedAt)]))
    .join('');
  const itemsTable = scrollTable({
    caption: 'Items',
    columns: ['Item', ['Quantity', 'num'], ['Unit price', 'num'], ['Total', 'num']],
    rows: items,
  });
  const paymentsTable = scrollTable({
    caption: 'Payments',
    columns: ['Payment', 'Method', ['Amount', 'num'], 'Applied'],
    rows: paymentRows,
    empty: 'No payments yet.',
  });
  const body = markup`
    <h1>Order <code>${e(order.id)}</code></h1>${notice(message)}
    ${summary(order)}
    ${itemsTable}
    ${amountsTable(order)}
    ${paymentsTable}
    ${refundsSection(order, refunds.refunds, refunds.refundable)}`;
  return layout(ctx, `Order ${order.id}`, body);
}
