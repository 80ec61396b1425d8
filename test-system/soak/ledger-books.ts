import type { BookTotals, BooksInput, Example, LedgerRow, StoredBalanceLine, StoredOrder } from './ledger-types';

export const BOOKS_ORDER_SUM = 'orders whose balance transactions do not sum to paid − refunded';
export const BOOKS_PAYMENT_LINES = 'payments without exactly one balance transaction';
export const BOOKS_REFUND_LINES = 'succeeded refunds without exactly one balance transaction';
export const BOOKS_ORPHAN_LINES = 'balance transactions without their movement';
export const BOOKS_BALANCE = 'merchants whose balance differs from the sum of their balance transactions';
export const BOOKS_REPORTS = "reports over the run's window whose sums differ from the API's";

/**
 * D52's rows, each 0 in every run: every order's lines sum to `paid − refunded`; every payment and every succeeded
 * refund has exactly one line (its type, order and amount); no line names a movement its order does not hold (a
 * pending or failed refund, a payment of another order, another amount); every merchant's balance (organization,
 * mode, currency) holds exactly its lines; and a report over the run's window sums as the API does.
 */
export function booksRows(orders: readonly StoredOrder[], books: BooksInput, example: Example): LedgerRow[] {
  const linesByOrder = new Map<string, StoredBalanceLine[]>();
  for (const line of books.lines) linesByOrder.set(line.orderId, [...(linesByOrder.get(line.orderId) ?? []), line]);
  const key = (type: string, sourceId: string) => `${type} ${sourceId}`;
  let sumMismatch = 0;
  let paymentLines = 0;
  let refundLines = 0;
  const ordersById = new Map(orders.map((o) => [o.id, o]));
  for (const order of orders) {
    const lines = linesByOrder.get(order.id) ?? [];
    const sum = lines.reduce((s, l) => s + l.amount, 0);
    const owed = order.paid - (order.refunded ?? 0);
    if (sum !== owed) {
      sumMismatch++;
      example(BOOKS_ORDER_SUM, `order ${order.id}: lines sum to ${sum}, paid − refunded is ${owed}`);
    }
    const count = (type: string, sourceId: string, amount: number) =>
      lines.filter((l) => key(l.type, l.sourceId) === key(type, sourceId) && l.amount === amount).length;
    for (const p of order.payments) {
      const n = count('payment', p.paymentId, p.amount);
      if (n === 1) continue;
      paymentLines++;
      example(BOOKS_PAYMENT_LINES, `payment ${p.paymentId} of order ${order.id} (${p.amount}): ${n} lines`);
    }
    for (const r of (order.refunds ?? []).filter((refund) => refund.status === 'succeeded')) {
      const n = count('refund', r.id, -r.amount);
      if (n === 1) continue;
      refundLines++;
      example(BOOKS_REFUND_LINES, `refund ${r.id} of order ${order.id} (${r.amount}): ${n} lines`);
    }
  }
  let orphans = 0;
  for (const line of books.lines) {
    const order = ordersById.get(line.orderId);
    const movements = new Set([
      ...(order?.payments ?? []).map((p) => `${key('payment', p.paymentId)} ${p.amount}`),
      ...(order?.refunds ?? [])
        .filter((r) => r.status === 'succeeded')
        .map((r) => `${key('refund', r.id)} ${-r.amount}`),
    ]);
    if (movements.has(`${key(line.type, line.sourceId)} ${line.amount}`)) continue;
    orphans++;
    example(BOOKS_ORPHAN_LINES, `${line.id}: ${line.type} ${line.sourceId} ${line.amount} of order ${line.orderId}`);
  }
  return [
    { label: 'balance transactions stored', value: books.lines.length, check: false },
    { label: BOOKS_ORDER_SUM, value: sumMismatch, check: true },
    { label: BOOKS_PAYMENT_LINES, value: paymentLines, check: true },
    { label: BOOKS_REFUND_LINES, value: refundLines, check: true },
    { label: BOOKS_ORPHAN_LINES, value: orphans, check: true },
    { label: BOOKS_BALANCE, value: balanceMismatches(books, example), check: true },
    ...(books.reports === undefined
      ? []
      : [
          {
            label: 'reports run (per merchant and mode) / their lines',
            value: `${books.reports.length} / ${books.reports.reduce((sum, r) => sum + r.report.count, 0)}`,
            check: false,
          },
          { label: BOOKS_REPORTS, value: reportMismatches(books, example), check: true },
        ]),
  ];
}

/** Per organization, mode and currency: the stored balance against Σ of the lines (a scope without lines has none). */
function balanceMismatches(books: BooksInput, example: Example): number {
  const scopeOf = (s: { organizationId: string; mode: string; currency: string }) =>
    `${s.organizationId}/${s.mode}/${s.currency}`;
  const sums = new Map<string, BookTotals>();
  for (const line of books.lines) {
    const totals = sums.get(scopeOf(line)) ?? { payments: 0, refunds: 0, count: 0 };
    if (line.amount >= 0) totals.payments += line.amount;
    else totals.refunds -= line.amount;
    totals.count++;
    sums.set(scopeOf(line), totals);
  }
  const stored = new Map(books.balances.map((b) => [scopeOf(b), b]));
  let mismatches = 0;
  for (const scope of new Set([...sums.keys(), ...stored.keys()])) {
    const want = sums.get(scope) ?? { payments: 0, refunds: 0, count: 0 };
    const have = stored.get(scope) ?? { payments: 0, refunds: 0, count: 0 };
    if (want.payments === have.payments && want.refunds === have.refunds && want.count === have.count) continue;
    mismatches++;
    example(
      BOOKS_BALANCE,
      `${scope}: balance ${have.payments}/${have.refunds}/${have.count}, lines ${want.payments}/${want.refunds}/${want.count} (payments/refunds/count)`,
    );
  }
  return mismatches;
}

function reportMismatches(books: BooksInput, example: Example): number {
  let mismatches = 0;
  for (const { merchant, report, api } of books.reports ?? []) {
    if (report.payments === api.payments && report.refunds === api.refunds && report.count === api.count) continue;
    mismatches++;
    example(BOOKS_REPORTS, `${merchant}: report ${JSON.stringify(report)}, API ${JSON.stringify(api)}`);
  }
  return mismatches;
}
