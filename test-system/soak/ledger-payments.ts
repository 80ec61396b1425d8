import type { Journey } from './journey-types';
import type { LedgerContext, LedgerRow, StoredOrder } from './ledger-types';

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

interface AppliedCounts {
  appliedTwice: number;
  appliedAgainAfterCrash: number;
  paidButRefused: number;
}

/**
 * Payments applied twice: one payment id applied more than once (on any orders), or more payments applied to a
 * session's order than the merchant asked for (test helper) or than distinct processor ids (live).
 */
export function paymentRows(ctx: LedgerContext): LedgerRow[] {
  const { input, example } = ctx;
  const counts: AppliedCounts = { appliedTwice: 0, appliedAgainAfterCrash: 0, paidButRefused: 0 };
  const timesApplied = new Map<string, number>();
  for (const order of input.orders)
    for (const p of order.payments) timesApplied.set(p.paymentId, (timesApplied.get(p.paymentId) ?? 0) + 1);
  for (const [paymentId, times] of timesApplied) {
    if (times > 1) {
      counts.appliedTwice += times - 1;
      example('payments applied twice', `${paymentId} applied ${times} times`);
    }
  }
  for (const journey of input.journeys) {
    const order = journey.orderId === undefined ? undefined : ctx.ordersById.get(journey.orderId);
    if (order && journey.sessionId) countJourneyPayments(ctx, journey, order, counts);
  }
  return [
    { label: 'payments applied twice', value: counts.appliedTwice, check: true },
    { label: SESSIONS_PATH_APPLIED_AGAIN, value: counts.appliedAgainAfterCrash, check: true },
    { label: SESSIONS_PATH_PAID_BUT_REFUSED, value: counts.paidButRefused, check: false },
    paidRow(ctx),
  ];
}

/** One session journey's order against the payments its merchant made (or its processor notified, live). */
function countJourneyPayments(
  { example }: LedgerContext,
  journey: Journey,
  order: StoredOrder,
  counts: AppliedCounts,
): void {
  // A payment refused with a 4xx on its first try was not applied. A 4xx on a retry after an unknown outcome
  // (e.g. SESSION_NOT_PAYABLE: the first try did pay the session) says nothing about the first try.
  const refused = journey.steps.filter((step) => /^pay 4\d\d/.test(step) && !step.includes(' after ')).length;
  const refusedAfterUnknown = journey.steps.filter((step) => /^pay 4\d\d .* after /.test(step));
  if (refusedAfterUnknown.length > 0) {
    counts.paidButRefused += refusedAfterUnknown.length;
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
    counts.appliedAgainAfterCrash += crashed;
    counts.appliedTwice += applied - allowed - crashed;
    example(crashed > 0 ? SESSIONS_PATH_APPLIED_AGAIN : 'payments applied twice', detail);
  }
  if (journey.mode === 'live') {
    for (const p of order.payments) {
      if (!journey.processorPaymentIds.includes(p.paymentId)) {
        counts.appliedTwice++;
        example('payments applied twice', `order ${order.id} carries ${p.paymentId}, never notified`);
      }
    }
  }
}

/** amounts.paid (as the API shows it, and as stored) against the sum of the order's applied payments. */
function paidRow({ input, journeysByOrder, example }: LedgerContext): LedgerRow {
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
  return { label: 'orders whose amounts.paid ≠ sum of applied payments', value: paidMismatch, check: true };
}
