import { z } from 'zod';
import { Pagination, Timestamp, isoTimeFilter, paginationQueryShape } from './common';
import { BalanceTransactionId, OrderId } from './ids';

// D52: the merchant's books. Orders owns them beside the payments and refunds they record (docs/books.md): one
// immutable balance transaction per money movement, the balance they add up to, and the per-day totals of the
// dashboard's chart.

export const BALANCE_TRANSACTION_TYPES = ['payment', 'refund'] as const;
export const BalanceTransactionType = z
  .enum(BALANCE_TRANSACTION_TYPES)
  .describe('`payment`: a payment applied to an order (amount > 0); `refund`: a refund that succeeded (amount < 0).');
export type BalanceTransactionType = z.infer<typeof BalanceTransactionType>;

const Currency = z
  .string()
  .length(3)
  .regex(/^[A-Z]{3}$/)
  .describe("ISO 4217 code: the order's currency.");

/** The currency a balance is read in when the caller names none: orders created through the API carry USD. */
export const BALANCE_CURRENCY_DEFAULT = 'USD';

// ---------------------------------------------------------------------------------------------------------
// Requests

export const ListBalanceTransactionsQuery = z
  .strictObject({
    ...paginationQueryShape,
    type: BalanceTransactionType.optional().describe('Only lines of this type.'),
    orderId: OrderId.optional().describe("Only this order's lines; another organization's id matches nothing."),
    createdAfter: isoTimeFilter('Only lines whose movement happened at or after this ISO-8601 time.'),
    createdBefore: isoTimeFilter(
      'Only lines whose movement happened before this ISO-8601 time; with createdAfter, the window ' +
        '[createdAfter, createdBefore).',
    ),
  })
  .meta({ id: 'ListBalanceTransactionsQuery' });
export type ListBalanceTransactionsQuery = z.infer<typeof ListBalanceTransactionsQuery>;

export const BalanceQuery = z
  .strictObject({
    currency: Currency.default(BALANCE_CURRENCY_DEFAULT).describe(
      `The currency of the balance, ISO 4217; default ${BALANCE_CURRENCY_DEFAULT}.`,
    ),
  })
  .meta({ id: 'BalanceQuery' });
export type BalanceQuery = z.infer<typeof BalanceQuery>;

/** How many days the dashboard's chart may ask for: a year and a day, as a report's window (D52). */
export const BALANCE_DAYS_MAX = 366;
export const BALANCE_DAYS_DEFAULT = 30;

/** Orders' internal `GET /internal/balance/daily`: the last `days` UTC days, today included. */
export const BalanceDailyQuery = z.strictObject({
  days: z
    .string()
    .regex(/^[0-9]+$/, { error: 'days must be an integer' })
    .transform(Number)
    .pipe(z.int().min(1).max(BALANCE_DAYS_MAX))
    .default(BALANCE_DAYS_DEFAULT),
  currency: Currency.default(BALANCE_CURRENCY_DEFAULT),
});
export type BalanceDailyQuery = z.infer<typeof BalanceDailyQuery>;

// ---------------------------------------------------------------------------------------------------------
// Responses

export const BalanceTransaction = z
  .object({
    id: BalanceTransactionId,
    type: BalanceTransactionType,
    orderId: OrderId,
    sourceId: z.string().min(1).describe("The payment's id (`pay_…` or the processor's) or the refund's id (`re_…`)."),
    amount: z.int().describe('Signed, in minor units: positive for a payment, negative for a refund.'),
    currency: Currency,
    createdAt: Timestamp.describe(
      "When the money moved: a payment's application, a refund's success. The list's order and filters use it.",
    ),
    recordedAt: Timestamp.describe('When the line was recorded; it never changes afterwards.'),
  })
  .meta({
    id: 'BalanceTransaction',
    description:
      'One money movement of an order, immutable (D52): exactly one per payment applied and per refund that ' +
      'succeeded; pending and failed refunds make none. For every order, the sum of its lines is ' +
      '`amounts.paid − amounts.refunded` once its events are processed.',
  });
export type BalanceTransaction = z.infer<typeof BalanceTransaction>;

export const BalanceTransactionResponse = z
  .object({ balanceTransaction: BalanceTransaction })
  .meta({ id: 'BalanceTransactionResponse' });
export type BalanceTransactionResponse = z.infer<typeof BalanceTransactionResponse>;

export const BalanceTransactionListResponse = z
  .object({ balanceTransactions: z.array(BalanceTransaction), pagination: Pagination })
  .meta({ id: 'BalanceTransactionListResponse' });
export type BalanceTransactionListResponse = z.infer<typeof BalanceTransactionListResponse>;

const total = (description: string) => z.int().min(0).describe(description);

export const Balance = z
  .object({
    currency: Currency,
    payments: total('Σ of the payment lines, minor units.'),
    refunds: total('Σ of the refund lines, as a positive number of minor units.'),
    net: z.int().describe('payments − refunds.'),
    count: total('How many lines the totals hold.'),
    asOf: Timestamp.describe(
      'Every line recorded before this time is in the totals; a line recorded since may not be yet (it is ' +
        'counted within seconds).',
    ),
  })
  .meta({
    id: 'Balance',
    description: "The totals of the balance transactions of this key's organization and mode, in one currency (D52).",
  });
export type Balance = z.infer<typeof Balance>;

export const BalanceResponse = z.object({ balance: Balance }).meta({ id: 'BalanceResponse' });
export type BalanceResponse = z.infer<typeof BalanceResponse>;

/** One UTC day of the dashboard's chart: what came in, what went back, the difference, and how many lines. */
export const BalanceDay = z.object({
  day: z.iso.date().describe('The UTC day of the movements, YYYY-MM-DD.'),
  payments: z.int().min(0),
  refunds: z.int().min(0),
  net: z.int(),
  count: z.int().min(0),
});
export type BalanceDay = z.infer<typeof BalanceDay>;

/** Orders' internal `GET /internal/balance/daily`: every day of the window, oldest first, a day without lines at 0. */
export const BalanceDailyResponse = z.object({
  currency: Currency,
  days: z.array(BalanceDay),
  asOf: Timestamp,
});
export type BalanceDailyResponse = z.infer<typeof BalanceDailyResponse>;
