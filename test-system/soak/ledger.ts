import {
  SESSION_EVENT_TYPES,
  paymentStatusFor,
  type CheckoutSession,
  type Delivery,
  type SessionEventStatus,
  type WebhookEvent,
} from '@checkout/contracts';
import type { ReceivedRequest } from '@checkout/testing';
import { insideOutage, RECOVERY_DEADLINE_MS, type OutageWindow } from './chaos';
import type { RequestRecord } from './client';
import type { Journey, ReceiverKind } from './load';

// The money and event ledger of the soak: pure functions over what the load generator sent and got back, what
// the API and the receivers show after the drain, and (for payment ids, which no API shows) the orders' own
// records: payments are stored once, in orders. Each row says what it counts; a row marked as a check must be 0.

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

/** Groups request outcomes: "201", "503", "connection-error", ... */
function statusTable(records: readonly RequestRecord[], windows: readonly OutageWindow[]) {
  const byOutcome = new Map<string, { total: number; inside: number }>();
  let failedOutside = 0;
  const failedOutsideExamples: string[] = [];
  for (const r of records) {
    const key = String(r.outcome);
    const entry = byOutcome.get(key) ?? { total: 0, inside: 0 };
    entry.total++;
    const inside = insideOutage(windows, r.sentAt, r.doneAt);
    if (inside) entry.inside++;
    byOutcome.set(key, entry);
    const failed = typeof r.outcome !== 'number' || r.outcome >= 500;
    if (failed && !inside) {
      failedOutside++;
      if (failedOutsideExamples.length < 5)
        failedOutsideExamples.push(`${r.route} → ${r.outcome} at ${new Date(r.sentAt).toISOString()}`);
    }
  }
  return { byOutcome, failedOutside, failedOutsideExamples };
}

const UNRECOVERED = `outages not recovered within ${RECOVERY_DEADLINE_MS / 1000} s`;

export function reconcile(input: LedgerInput): LedgerReport {
  const rows: LedgerRow[] = [];
  const examples: string[] = [];
  const example = (what: string, detail: string) => {
    if (examples.filter((e) => e.startsWith(what)).length < 5) examples.push(`${what}: ${detail}`);
  };

  // 1. Requests by status; 5xx and unanswered requests only inside outage windows.
  const status = statusTable(input.records, input.windows);
  const outcomes = [...status.byOutcome.entries()].sort(([a], [b]) => a.localeCompare(b));
  rows.push({ label: 'requests sent', value: input.records.length, check: false });
  for (const [outcome, { total, inside }] of outcomes) {
    const failed = outcome === 'connection-error' || outcome === 'timeout' || Number(outcome) >= 500;
    rows.push({
      label: `  ${outcome}`,
      value: failed ? `${total} (${inside} inside outage windows)` : total,
      check: false,
    });
  }
  rows.push({ label: '5xx or no answer outside outage windows', value: status.failedOutside, check: true });
  // An outage, inside a window or not, is a 503 the merchant may retry; a 500 is a defect whenever it happens.
  const internalErrors = input.records.filter((r) => r.outcome === 500);
  rows.push({ label: '500 responses (an outage must answer 503)', value: internalErrors.length, check: true });
  for (const r of internalErrors) example('500 responses', `${r.route} at ${new Date(r.sentAt).toISOString()}`);
  const unrecovered = input.windows.filter((w) => !w.recovered);
  rows.push({ label: UNRECOVERED, value: unrecovered.length, check: true });
  for (const w of unrecovered)
    example(UNRECOVERED, `${w.what}: not ready ${((w.readyAt - w.start) / 1000).toFixed(0)} s later`);
  for (const e of status.failedOutsideExamples) example('5xx or no answer outside outage windows', e);

  // 2. Payments applied twice: one payment id applied more than once (on any orders), or more payments applied
  //    to a session's order than the merchant asked for (test helper) or than distinct processor ids (live).
  const journeysByOrder = new Map(input.journeys.filter((j) => j.orderId).map((j) => [j.orderId as string, j]));
  const ordersById = new Map(input.orders.map((o) => [o.id, o]));
  const timesApplied = new Map<string, number>();
  for (const order of input.orders)
    for (const p of order.payments) timesApplied.set(p.paymentId, (timesApplied.get(p.paymentId) ?? 0) + 1);
  let appliedTwice = 0;
  let appliedAgainAfterCrash = 0;
  let paidButRefused = 0;
  for (const [paymentId, times] of timesApplied) {
    if (times > 1) {
      appliedTwice += times - 1;
      example('payments applied twice', `${paymentId} applied ${times} times`);
    }
  }
  for (const journey of input.journeys) {
    const order = journey.orderId === undefined ? undefined : ordersById.get(journey.orderId);
    if (!order || !journey.sessionId) continue;
    // A payment refused with a 4xx on its first try was not applied. A 4xx on a retry after an unknown outcome
    // (e.g. SESSION_NOT_PAYABLE: the first try did pay the session) says nothing about the first try.
    const refused = journey.steps.filter((step) => /^pay 4\d\d/.test(step) && !step.includes(' after ')).length;
    const refusedAfterUnknown = journey.steps.filter((step) => /^pay 4\d\d .* after /.test(step));
    if (refusedAfterUnknown.length > 0) {
      paidButRefused += refusedAfterUnknown.length;
      example(
        SESSIONS_PATH_PAID_BUT_REFUSED,
        `journey ${journey.n} (${journey.kind}) order ${order.id}: merchant saw [${journey.steps.join(', ')}]`,
      );
    }
    const allowed = journey.mode === 'live' ? journey.processorPaymentIds.length : journey.paymentIntents - refused;
    const applied = new Set(order.payments.map((p) => p.paymentId)).size;
    if (applied > allowed) {
      const payments = order.payments.map((p) => `${p.paymentId} ${p.amount}`).join(', ');
      const detail = `journey ${journey.n} (${journey.kind}) asked for ${allowed} payment(s); order ${order.id} has ${applied}: ${payments}; merchant saw [${journey.steps.join(', ')}]`;
      // Each extra payment matched by a first try whose outcome was lost (a pay step answered only on a retry):
      // the retry, same Idempotency-Key, ran the payment again under a new payment id.
      const retriedAfterUnknown = journey.steps.filter((step) => /^pay .* after /.test(step)).length;
      const crashed = Math.min(applied - allowed, retriedAfterUnknown);
      appliedAgainAfterCrash += crashed;
      appliedTwice += applied - allowed - crashed;
      example(crashed > 0 ? SESSIONS_PATH_APPLIED_AGAIN : 'payments applied twice', detail);
    }
    if (journey.mode === 'live') {
      for (const p of order.payments) {
        if (!journey.processorPaymentIds.includes(p.paymentId)) {
          appliedTwice++;
          example('payments applied twice', `order ${order.id} carries ${p.paymentId}, never notified`);
        }
      }
    }
  }
  rows.push({ label: 'payments applied twice', value: appliedTwice, check: true });
  rows.push({ label: SESSIONS_PATH_APPLIED_AGAIN, value: appliedAgainAfterCrash, check: true });
  rows.push({ label: SESSIONS_PATH_PAID_BUT_REFUSED, value: paidButRefused, check: false });

  // 3. amounts.paid (as the API shows it, and as stored) against the sum of the order's applied payments.
  let paidMismatch = 0;
  for (const order of input.orders) {
    const sum = order.payments.reduce((s, p) => s + p.amount, 0);
    const journey = journeysByOrder.get(order.id);
    const shown =
      journey?.sessionId === undefined ? undefined : input.sessions.get(journey.sessionId)?.order.amounts.paid;
    if (order.paid !== sum || (shown !== undefined && shown !== sum)) {
      paidMismatch++;
      example(
        'orders whose amounts.paid differs',
        `${order.id}: stored paid ${order.paid}, API paid ${shown ?? '-'}, applied payments sum ${sum}`,
      );
    }
  }
  rows.push({ label: 'orders whose amounts.paid ≠ sum of applied payments', value: paidMismatch, check: true });

  // 4. Each completed (expired) session has exactly one completed (expired) event id, counting the ids the
  //    events API shows and the ids the receivers saw, and no event of the other kind.
  const eventIdsBySession = new Map<string, Map<string, Set<string>>>();
  const note = (sessionId: string, type: string, eventId: string) => {
    const byType = eventIdsBySession.get(sessionId) ?? new Map<string, Set<string>>();
    const ids = byType.get(type) ?? new Set<string>();
    ids.add(eventId);
    byType.set(type, ids);
    eventIdsBySession.set(sessionId, byType);
  };
  for (const { event } of input.events) note(event.session.id, event.event, event.id);
  const allReceived = Object.values(input.received).flat();
  for (const request of allReceived) {
    const body = JSON.parse(request.body) as SessionWebhookEvent;
    note(body.session.id, body.event, body.id);
  }
  // A session that reached a status firing an event has exactly one event of that type and none of the others.
  const terminalCheck = (status: SessionEventStatus) => {
    const type = SESSION_EVENT_TYPES[status];
    const others = Object.values(SESSION_EVENT_TYPES).filter((t) => t !== type);
    let bad = 0;
    for (const session of input.sessions.values()) {
      if (session.status !== status) continue;
      const ids = eventIdsBySession.get(session.id);
      const own = ids?.get(type)?.size ?? 0;
      const contradicting = others.reduce((sum, other) => sum + (ids?.get(other)?.size ?? 0), 0);
      if (own !== 1 || contradicting !== 0) {
        bad++;
        example(
          `${status} sessions without exactly one ${type}`,
          `${session.id}: ${own} ${type}, ${contradicting} of ${others.join(', ')}`,
        );
      }
    }
    return bad;
  };
  rows.push({
    label: 'completed sessions without exactly one checkout.session.completed id',
    value: terminalCheck('completed'),
    check: true,
  });
  rows.push({
    label: 'expired sessions without exactly one checkout.session.expired id',
    value: terminalCheck('expired'),
    check: true,
  });
  let eventsOfOpenSessions = 0;
  for (const [sessionId, byType] of eventIdsBySession) {
    const session = input.sessions.get(sessionId);
    if (session && session.status !== 'completed' && session.status !== 'expired' && byType.size > 0) {
      eventsOfOpenSessions++;
      example('events of sessions that are neither completed nor expired', `${sessionId} is ${session.status}`);
    }
  }
  rows.push({ label: 'events of sessions neither completed nor expired', value: eventsOfOpenSessions, check: true });

  // 5. One delivery id per delivery: each event has one delivery (one callback URL, no redelivery in the soak),
  //    so every request a receiver saw for it, and the events API, must name the same delivery id.
  const deliveryIdsByEvent = new Map<string, Set<string>>();
  const noteDelivery = (eventId: string, deliveryId: string) =>
    deliveryIdsByEvent.set(eventId, (deliveryIdsByEvent.get(eventId) ?? new Set()).add(deliveryId));
  for (const { event, deliveries } of input.events) for (const d of deliveries) noteDelivery(event.id, d.id);
  for (const request of allReceived) {
    const eventId = header(request.headers, 'x-service-event-id');
    const deliveryId = header(request.headers, 'x-service-delivery-id');
    if (eventId && deliveryId) noteDelivery(eventId, deliveryId);
  }
  let manyDeliveryIds = 0;
  for (const [eventId, ids] of deliveryIdsByEvent) {
    if (ids.size > 1) {
      manyDeliveryIds++;
      example('events with more than one delivery id', `${eventId}: ${[...ids].join(', ')}`);
    }
  }
  rows.push({ label: 'events whose deliveries used more than one delivery id', value: manyDeliveryIds, check: true });

  // 6. Events lost: a terminal session whose event the events API does not have; an event never seen by its
  //    receiver; a delivery to a receiver that does answer 2xx (eventually) that ended failed.
  const apiEventSessions = new Set(input.events.map(({ event }) => `${event.session.id} ${event.event}`));
  const receivedEventIds = new Set(allReceived.map((r) => header(r.headers, 'x-service-event-id')));
  const receiverOf = new Map(input.journeys.filter((j) => j.sessionId).map((j) => [j.sessionId as string, j.receiver]));
  let lost = 0;
  for (const session of input.sessions.values()) {
    if (
      (session.status === 'completed' || session.status === 'expired') &&
      !apiEventSessions.has(`${session.id} checkout.session.${session.status}`)
    ) {
      lost++;
      example('events lost', `${session.id} is ${session.status}; the events API has no such event`);
    }
  }
  for (const { event, deliveries } of input.events) {
    if (!receiverOf.has(event.session.id)) continue;
    if (!receivedEventIds.has(event.id)) {
      lost++;
      example(
        'events lost',
        `${event.id} (${event.event}, ${event.session.id}) never reached its ${receiverOf.get(event.session.id)} receiver; deliveries: ${deliveries.map((d) => `${d.id} ${d.status} ${d.attempts.length} attempts [${d.attempts.map((a) => a.statusCode ?? a.error).join(', ')}]`).join('; ') || 'none'}`,
      );
    } else if (receiverOf.get(event.session.id) !== 'failing' && deliveries.some((d) => d.status === 'failed')) {
      lost++;
      example(
        'events lost',
        `${event.id} to a ${receiverOf.get(event.session.id)} receiver ended failed: ${deliveries.map((d) => `${d.id} ${d.status} [${d.attempts.map((a) => a.statusCode ?? a.error).join(', ')}]`).join('; ')}`,
      );
    }
  }
  rows.push({ label: 'events lost', value: lost, check: true });

  // 7. Nothing left pending once the drain is over (failed = dead-lettered, which is final).
  const deliveries = input.events.flatMap((e) => e.deliveries);
  const pending = deliveries.filter((d) => d.status === 'pending').length;
  for (const { event, deliveries: ds } of input.events) {
    for (const d of ds.filter((x) => x.status === 'pending')) {
      example(
        'deliveries still pending',
        `${d.id} of ${event.id} (${event.session.id}, ${receiverOf.get(event.session.id) ?? 'unknown'} receiver): ${d.attempts.length} attempts, last ${d.attempts.at(-1)?.error ?? d.attempts.at(-1)?.statusCode ?? 'none'}`,
      );
    }
  }
  rows.push({ label: 'webhook deliveries still pending after the drain', value: pending, check: true });
  rows.push({
    label: 'webhook deliveries succeeded / failed (dead-lettered)',
    value: `${deliveries.filter((d) => d.status === 'succeeded').length} / ${deliveries.filter((d) => d.status === 'failed').length}`,
    check: false,
  });

  // 8. What the merchant was told, against what is there. A definite answer (2xx) to a step must be what the
  //    session shows in the end, and a 409 DUPLICATE_EXTERNAL_ID to a retried create (the first attempt's
  //    answer was lost, D37) must mean a session exists for that externalId.
  let contradicted = 0;
  let orphaned = 0;
  const sessionsByExternalId = new Map(
    input.orders.filter((o) => o.externalId !== undefined).map((o) => [o.externalId as string, o.id]),
  );
  for (const journey of input.journeys) {
    if (ORDER_ONLY_KINDS.has(journey.kind)) continue;
    if (journey.created === 'duplicate-on-retry') {
      const orderId = sessionsByExternalId.get(journey.externalId);
      if (orderId === undefined || !input.sessionOrderIds.has(orderId)) {
        orphaned++;
        example(
          ORPHANED_CREATES,
          `journey ${journey.n}: create answered 409 DUPLICATE_EXTERNAL_ID after a 5xx, but no session exists for ${journey.externalId} (order ${orderId ?? 'none'})`,
        );
      }
      continue;
    }
    const session = journey.sessionId === undefined ? undefined : input.sessions.get(journey.sessionId);
    const expected = promisedStatus(journey);
    if (session && expected && session.status !== expected) {
      contradicted++;
      const stored = input.storedStateOf?.(session.id);
      example(
        'answers contradicted',
        `journey ${journey.n} (${journey.kind}) ${session.id}: told [${journey.steps.join(', ')}], session is ${session.status}${stored ? ` (${stored})` : ''}`,
      );
    }
  }
  // 8b. D48: a refund answered 201 must be stored on its order, and one Idempotency-Key names one refund.
  contradicted += refundsNotStored(input, ordersById, example);
  rows.push({ label: 'definite answers the final state contradicts', value: contradicted, check: true });
  rows.push(...refundRows(input, ordersById, journeysByOrder, example));
  if (input.books) rows.push(...booksRows(input.orders, input.books, example));
  // 9. Every consumer caught up: what a stopped consumer owed shows up above only for the checks that look.
  if (input.consumerLag !== undefined) {
    let lagging = 0;
    for (const [group, lag] of input.consumerLag) {
      lagging += lag;
      if (lag > 0) example('consumer lag after the drain', `${group}: ${lag} messages not committed`);
    }
    rows.push({ label: 'messages consumer groups had not consumed after the drain', value: lagging, check: true });
  }
  rows.push({ label: ORPHANED_CREATES, value: orphaned, check: true });

  // Context, and the generator's own health (a crashed journey would hide what it should have checked).
  const byKind = new Map<string, number>();
  for (const j of input.journeys) byKind.set(j.kind, (byKind.get(j.kind) ?? 0) + 1);
  rows.push({
    label: 'journeys',
    value: `${input.journeys.length} (${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')})`,
    check: false,
  });
  const creates = new Map<string, number>();
  for (const j of input.journeys)
    creates.set(j.created ?? 'not tried', (creates.get(j.created ?? 'not tried') ?? 0) + 1);
  rows.push({ label: 'creates', value: [...creates].map(([k, n]) => `${k} ${n}`).join(', '), check: false });
  const states = new Map<string, number>();
  for (const s of input.sessions.values()) states.set(s.status, (states.get(s.status) ?? 0) + 1);
  rows.push({ label: 'sessions by status', value: [...states].map(([k, n]) => `${k} ${n}`).join(', '), check: false });
  rows.push({ label: 'events recorded', value: input.events.length, check: false });
  rows.push({
    label: 'outage windows',
    value: input.windows.map((w) => `${w.what} ${((w.end - w.start) / 1000).toFixed(1)} s`).join('; ') || 'none',
    check: false,
  });
  rows.push({ label: 'journeys skipped (generator saturated)', value: input.skippedJourneys, check: false });
  rows.push({ label: 'load generator errors', value: input.generatorErrors.length, check: true });
  rows.push({ label: 'ledger reads refused after the drain', value: input.unreadable?.length ?? 0, check: true });
  for (const e of (input.unreadable ?? []).slice(0, 3)) example('ledger reads refused after the drain', e);
  for (const e of input.generatorErrors.slice(0, 5)) example('load generator errors', e);

  const violations = rows.filter((r) => r.check && r.value !== 0).length;
  return { rows, violations, examples };
}

/**
 * A payment whose first try was applied but whose answer was lost, retried by the merchant with the same
 * Idempotency-Key (the gateway keeps no 5xx, D42), applied a second time. The payment id is derived from the key
 * (docs/decisions.md, D42), so orders sees the same payment; this row keeps that honest.
 */
export const SESSIONS_PATH_APPLIED_AGAIN =
  'sessions payment path: payment applied again on a retry after an unknown outcome';

/**
 * Not a check, counted for the record: a payment retried with its Idempotency-Key after an unknown outcome whose
 * retry was refused (4xx). The money is applied once, but the merchant's last answer for that key says it was not.
 */
export const SESSIONS_PATH_PAID_BUT_REFUSED = 'payments answered 4xx on a retry after an unknown outcome';

/**
 * A session create that failed after orders created its order (sessions killed, or the database gone, between
 * the two writes) whose retry answered 409 DUPLICATE_EXTERNAL_ID with no session behind it. A keyed create
 * derives the session id from its Idempotency-Key, so the retry finishes the first try's session (D42).
 */
export const ORPHANED_CREATES = 'retried creates answered 409 with no session behind them';

/** Journeys that make an order without a session. */
const ORDER_ONLY_KINDS = new Set<Journey['kind']>(['order', 'refund-cancelled']);

export const REFUNDS_EXCEED_PAID = 'orders whose succeeded (or succeeded and pending) refunds exceed paid';
export const REFUNDS_APPLIED_TWICE = 'refunds applied twice';
export const REFUNDS_DISAGREE = 'orders whose amounts.refunded or paymentStatus disagrees with their refunds';
export const REFUND_EVENTS_LOST = 'refund events lost';
export const REFUND_EVENTS_TWICE = 'refund events recorded under more than one event id';
export const ORDER_EVENTS_LOST = 'order events lost (order.created, order.paid, order.cancelled)';

type Example = (what: string, detail: string) => void;

/** Refunds answered 201 that the order does not hold: a definite answer the final state contradicts. */
function refundsNotStored(input: LedgerInput, ordersById: ReadonlyMap<string, StoredOrder>, example: Example): number {
  let missing = 0;
  for (const journey of input.journeys) {
    const stored = new Set((ordersById.get(journey.orderId ?? '')?.refunds ?? []).map((r) => r.id));
    for (const intent of journey.refunds) {
      for (const id of intent.refundIds) {
        if (stored.has(id)) continue;
        missing++;
        example(
          'answers contradicted',
          `journey ${journey.n} (${journey.kind}): refund ${id} answered 201, not on order ${journey.orderId ?? '?'}`,
        );
      }
    }
  }
  return missing;
}

/**
 * D48 and D49's rows, each 0 in every run: no order refunds more than it was paid (succeeded, or succeeded and
 * pending together, which bound what is refundable); no refund applied twice (one refund id stored twice, more
 * refunds on an order than the merchant's distinct Idempotency-Keys could have made, or one key answered with two
 * refunds); amounts.refunded and paymentStatus (stored, and in the session's copy after the drain) agree with the
 * refunds; every refund's events, and every order's, are in the events API, each under one event id.
 */
function refundRows(
  input: LedgerInput,
  ordersById: ReadonlyMap<string, StoredOrder>,
  journeysByOrder: ReadonlyMap<string, Journey>,
  example: Example,
): LedgerRow[] {
  const refundsOf = (order: StoredOrder) => order.refunds ?? [];
  const sum = (refunds: readonly { amount: number }[]) => refunds.reduce((s, r) => s + r.amount, 0);

  let exceed = 0;
  let disagree = 0;
  const timesStored = new Map<string, number>();
  for (const order of input.orders) {
    const refunds = refundsOf(order);
    const succeeded = sum(refunds.filter((r) => r.status === 'succeeded'));
    const held = sum(refunds.filter((r) => r.status !== 'failed'));
    for (const r of refunds) timesStored.set(r.id, (timesStored.get(r.id) ?? 0) + 1);
    if (succeeded > order.paid || held > order.paid) {
      exceed++;
      example(REFUNDS_EXCEED_PAID, `${order.id}: paid ${order.paid}, succeeded ${succeeded}, with pending ${held}`);
    }
    const stored = order.refunded ?? 0;
    const expected = order.total === undefined ? undefined : paymentStatusFor(order.paid, order.total, succeeded);
    const journey = journeysByOrder.get(order.id);
    const copy = journey?.sessionId === undefined ? undefined : input.sessions.get(journey.sessionId)?.order;
    const problems = [
      stored !== succeeded && `amounts.refunded ${stored} but succeeded refunds ${succeeded}`,
      expected !== undefined &&
        order.paymentStatus !== expected &&
        `paymentStatus ${order.paymentStatus} not ${expected}`,
      copy !== undefined &&
        ((copy.amounts.refunded ?? 0) !== stored ||
          (order.paymentStatus !== undefined && copy.paymentStatus !== order.paymentStatus)) &&
        `the session's copy shows ${copy.amounts.refunded ?? 0} refunded, ${copy.paymentStatus}`,
    ].filter((p): p is string => typeof p === 'string');
    if (problems.length > 0) {
      disagree++;
      example(REFUNDS_DISAGREE, `${order.id}: ${problems.join('; ')}`);
    }
  }

  let twice = 0;
  for (const [id, times] of timesStored) {
    if (times > 1) {
      twice += times - 1;
      example(REFUNDS_APPLIED_TWICE, `${id} stored ${times} times`);
    }
  }
  for (const journey of input.journeys) {
    if (journey.refunds.length === 0) continue;
    const order = ordersById.get(journey.orderId ?? '');
    // A key whose every answer was a definite refusal made no refund; any other may have made one, at most.
    const couldMake = journey.refunds.filter(
      (i) => i.unknownFirst || i.refundIds.length > 0 || i.answers.some((a) => !/^4\d\d/.test(a)),
    ).length;
    const stored = order ? refundsOf(order).length : 0;
    if (stored > couldMake) {
      twice += stored - couldMake;
      example(
        REFUNDS_APPLIED_TWICE,
        `journey ${journey.n} (${journey.kind}) order ${journey.orderId}: ${stored} refunds stored, ${couldMake} keys could make one; told [${journey.steps.join(', ')}]`,
      );
    }
    for (const intent of journey.refunds) {
      const ids = new Set(intent.refundIds);
      if (ids.size > 1) {
        twice += ids.size - 1;
        example(REFUNDS_APPLIED_TWICE, `key ${intent.key} answered with ${[...ids].join(', ')}`);
      }
    }
  }

  // D49: the events API's order and refund events, by refund and by order.
  const byRefund = new Map<string, Map<string, Set<string>>>();
  const byOrder = new Map<string, Set<string>>();
  for (const event of input.publicEvents) {
    if ('refund' in event) {
      const types = byRefund.get(event.refund.id) ?? new Map<string, Set<string>>();
      types.set(event.event, (types.get(event.event) ?? new Set()).add(event.id));
      byRefund.set(event.refund.id, types);
    } else if ('order' in event) {
      byOrder.set(event.order.id, (byOrder.get(event.order.id) ?? new Set()).add(event.event));
    }
  }
  let refundEventsLost = 0;
  let refundEventsTwice = 0;
  let orderEventsLost = 0;
  for (const order of input.orders) {
    for (const refund of refundsOf(order)) {
      const types = byRefund.get(refund.id);
      const owed = ['refund.created', ...(refund.status === 'pending' ? [] : [`refund.${refund.status}`])];
      for (const type of owed) {
        const ids = types?.get(type)?.size ?? 0;
        if (ids === 0) {
          refundEventsLost++;
          example(REFUND_EVENTS_LOST, `${type} of ${refund.id} (${refund.status}, order ${order.id})`);
        } else if (ids > 1) {
          refundEventsTwice += ids - 1;
          example(REFUND_EVENTS_TWICE, `${type} of ${refund.id}: ${ids} event ids`);
        }
      }
    }
    const owedByOrder = [
      'order.created',
      ...(order.status === 'completed' ? ['order.paid'] : []),
      ...(order.status === 'cancelled' ? ['order.cancelled'] : []),
    ];
    for (const type of owedByOrder) {
      if (byOrder.get(order.id)?.has(type)) continue;
      orderEventsLost++;
      example(ORDER_EVENTS_LOST, `${type} of ${order.id} (${order.status ?? '?'})`);
    }
  }

  const refundsStored = input.orders.reduce((n, o) => n + refundsOf(o).length, 0);
  const byStatus = new Map<string, number>();
  for (const o of input.orders) for (const r of refundsOf(o)) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  return [
    { label: REFUNDS_EXCEED_PAID, value: exceed, check: true },
    { label: REFUNDS_APPLIED_TWICE, value: twice, check: true },
    { label: REFUNDS_DISAGREE, value: disagree, check: true },
    { label: REFUND_EVENTS_LOST, value: refundEventsLost, check: true },
    { label: REFUND_EVENTS_TWICE, value: refundEventsTwice, check: true },
    { label: ORDER_EVENTS_LOST, value: orderEventsLost, check: true },
    {
      label: 'refunds stored (by status) / order and refund events recorded',
      value: `${refundsStored} (${[...byStatus].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}) / ${input.publicEvents.length}`,
      check: false,
    },
  ];
}

/** The status a session journey's definite answers promise, or undefined when they promise none. */
function promisedStatus(journey: Journey): CheckoutSession['status'] | undefined {
  const answered = (step: string) => journey.steps.filter((s) => s.startsWith(`${step} `)).map((s) => s.split(' ')[1]);
  const allOk = (step: string) => answered(step).length > 0 && answered(step).every((o) => o === '200');
  switch (journey.kind) {
    case 'pay-full':
    case 'pay-partial':
    case 'decline-then-pay':
    case 'refund':
    case 'refund-overpaid':
      // Every payment the merchant made got a 200 (a declined one says nothing about the session's end).
      return allOk('pay') && answered('pay').length === journey.paymentIntents ? 'completed' : undefined;
    case 'live-processor':
    case 'refund-live':
      // A refund never changes the order's status (D48): the session stays completed.
      return allOk('processor-notification') ? 'completed' : undefined;
    case 'expire':
      return allOk('expire') ? 'expired' : undefined;
    case 'cancel':
      return allOk('cancel-order') ? 'cancelled' : undefined;
    default:
      return undefined;
  }
}

export function formatLedger(report: LedgerReport): string {
  const width = Math.max(...report.rows.map((r) => r.label.length));
  const lines = report.rows.map(
    (r) =>
      `${r.label.padEnd(width)}  ${String(r.value).padStart(6)}${r.check ? (r.value === 0 ? '  ok' : '  VIOLATION') : ''}`,
  );
  return [
    `${'ledger'.padEnd(width)}  ${'value'.padStart(6)}`,
    '-'.repeat(width + 12),
    ...lines,
    '-'.repeat(width + 12),
    report.violations === 0 ? 'no violations' : `${report.violations} check(s) violated`,
    ...report.examples.map((e) => `  ${e}`),
  ].join('\n');
}

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
function booksRows(orders: readonly StoredOrder[], books: BooksInput, example: Example): LedgerRow[] {
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
