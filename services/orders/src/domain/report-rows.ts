import { REPORT_COLUMNS, type ReportType } from '@checkout/contracts';
import type { Scope } from '@checkout/mongo';
import type { BalanceTransactionDocument } from '../store/balance-transaction.document';
import type { OrderDocument } from '../store/order.document';
import { csvChunks, type CsvValue } from './csv';
import type { RefundRow, ReportSources, ReportWindow } from './report-ports';

// D52: one line per record, in REPORT_COLUMNS' order; amounts in minor units, times ISO-8601.

const iso = (date: Date | undefined): string | undefined => date?.toISOString();

function balanceTransactionCells(line: BalanceTransactionDocument): CsvValue[] {
  return [
    line._id,
    line.type,
    line.orderId,
    line.sourceId,
    line.amount,
    line.currency,
    iso(line.createdAt),
    iso(line.recordedAt),
  ];
}

function orderCells(order: OrderDocument): CsvValue[] {
  return [
    order._id,
    order.externalId,
    order.status,
    order.paymentStatus,
    order.currency,
    order.amounts.total,
    order.amounts.paid,
    // An order stored before refunds existed has refunded nothing (D48).
    order.amounts.refunded ?? 0,
    iso(order.createdAt),
    iso(order.updatedAt),
  ];
}

function refundCells({ orderId, currency, refund }: RefundRow): CsvValue[] {
  return [
    refund.id,
    orderId,
    refund.status,
    refund.amount,
    currency,
    refund.reason,
    refund.failureReason,
    iso(refund.createdAt),
    iso(refund.updatedAt),
  ];
}

/** The CSV of a report of `type`, in chunks, read from its cursor; `counted` receives the number of rows. */
export function reportChunks(
  type: ReportType,
  sources: ReportSources,
  scope: Scope,
  window: ReportWindow,
  counted: (rows: number) => void,
): AsyncIterable<Buffer> {
  switch (type) {
    case 'balance_transactions':
      return csvChunks(
        REPORT_COLUMNS[type],
        sources.balanceTransactions(scope, window),
        balanceTransactionCells,
        counted,
      );
    case 'orders':
      return csvChunks(REPORT_COLUMNS[type], sources.orders(scope, window), orderCells, counted);
    case 'refunds':
      return csvChunks(REPORT_COLUMNS[type], sources.refunds(scope, window), refundCells, counted);
  }
}
