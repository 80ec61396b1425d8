import type { CheckoutSession, Delivery, WebhookEvent } from '@checkout/contracts';
import type { ReceivedRequest } from '@checkout/testing';
import type { OutageWindow } from './chaos';
import type { RequestRecord } from './client';
import type { Journey, ReceiverKind } from './journey-types';

// What the soak's money and event ledger reads and what it prints (ledger.ts reconciles them).

/** An order as stored by the orders service: payments are not part of the public API. */
export interface StoredOrder {
  id: string;
  paid: number;
  payments: { paymentId: string; amount: number }[];
  total?: number;
  status?: string;
  paymentStatus?: string;
  /** D48: amounts.refunded as stored (absent on an order never refunded before refunds existed: 0). */
  refunded?: number;
  /** D48: the order's refunds as stored (absent: none). */
  refunds?: { id: string; amount: number; status: string }[];
  /** The merchant's externalId, when given: ties an order to a journey whose create never returned it. */
  externalId?: string;
}

/** D52: a balance transaction as orders stores it (collection `balance_transactions`). */
export interface StoredBalanceLine {
  id: string;
  organizationId: string;
  mode: string;
  type: string;
  orderId: string;
  sourceId: string;
  amount: number;
  currency: string;
}

/** D52: a balance as orders keeps it (collection `balances`): one per organization, mode and currency. */
export interface StoredBalance {
  organizationId: string;
  mode: string;
  currency: string;
  payments: number;
  refunds: number;
  count: number;
}

/** D52: what the books rows read, from orders' store once the ledger has counted everything it was sent. */
export interface BooksInput {
  lines: readonly StoredBalanceLine[];
  balances: readonly StoredBalance[];
  /**
   * A report over the run's window and what the API answered for the same lines, per merchant (organization and
   * mode): `{payments, refunds, count}` each. Absent where a release's gateway or orders serves no reports.
   */
  reports?: ReadonlyArray<{ merchant: string; report: BookTotals; api: BookTotals }>;
}

export interface BookTotals {
  payments: number;
  refunds: number;
  count: number;
}

/** A checkout session's event (D30): the only kind a session's callback URL receives (D49). */
export type SessionWebhookEvent = Extract<WebhookEvent, { session: unknown }>;

export interface EventWithDeliveries {
  event: SessionWebhookEvent;
  deliveries: Delivery[];
}

export interface LedgerInput {
  records: readonly RequestRecord[];
  windows: readonly OutageWindow[];
  journeys: readonly Journey[];
  /** Every journey's session as GET returns it after the drain, by id. */
  sessions: ReadonlyMap<string, CheckoutSession>;
  /** Every session event of the soak's merchants (events API), with its deliveries. */
  events: readonly EventWithDeliveries[];
  /** D49: every order and refund event of the soak's merchants, as the events API lists them (no deliveries). */
  publicEvents: readonly WebhookEvent[];
  orders: readonly StoredOrder[];
  /** The order id of every session the sessions service stored (read from its store, not the API). */
  sessionOrderIds: ReadonlySet<string>;
  received: Readonly<Record<ReceiverKind, readonly ReceivedRequest[]>>;
  skippedJourneys: number;
  generatorErrors: readonly string[];
  /** Ledger reads the API refused even after retries (a stack that did not recover): nothing is proven for them. */
  unreadable?: readonly string[];
  /**
   * Messages each consumer group had not committed when the drain ended (group → count). Anything left means a
   * consumer stopped, and whatever it owed (a session cancelled with its order) never happened.
   */
  consumerLag?: ReadonlyMap<string, number>;
  /** What the stores hold behind a session (its order copy, the order), named in a contradicted answer's example. */
  storedStateOf?: (sessionId: string) => string | undefined;
  /** D52's books; absent when the orders that ran last has no ledger (a rollout ending on an older release). */
  books?: BooksInput;
}

export interface LedgerRow {
  label: string;
  value: number | string;
  /** A check: any value other than 0 is a violation. */
  check: boolean;
  /**
   * A speed target (a p99 ratio): a violation of `npm run soak`, whose exit code it sets, but never asserted by a
   * test, where a busy machine's timing would fail a correct build (timings belong in commands that print them).
   */
  timing?: boolean;
}

export interface LedgerReport {
  rows: LedgerRow[];
  violations: number;
  /** Up to a few examples per violated check, for the log. */
  examples: string[];
}

/** A request header's (first) value. */
export const header = (headers: ReceivedRequest['headers'], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Records one example of a violated row, for the log (a few per row). */
export type Example = (what: string, detail: string) => void;

/** What every group of the ledger's rows reads: the input, its lookups built once, and where examples go. */
export interface LedgerContext {
  input: LedgerInput;
  ordersById: ReadonlyMap<string, StoredOrder>;
  journeysByOrder: ReadonlyMap<string, Journey>;
  /** Every request the receivers saw, whatever their kind. */
  received: readonly ReceivedRequest[];
  example: Example;
}
