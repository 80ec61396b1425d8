import { paymentStatusFor } from '@checkout/contracts';
import type { LedgerContext, LedgerRow, StoredOrder } from './ledger-types';

export const REFUNDS_EXCEED_PAID = 'orders whose succeeded (or succeeded and pending) refunds exceed paid';
export const REFUNDS_APPLIED_TWICE = 'refunds applied twice';
export const REFUNDS_DISAGREE = 'orders whose amounts.refunded or paymentStatus disagrees with their refunds';
export const REFUND_EVENTS_LOST = 'refund events lost';
export const REFUND_EVENTS_TWICE = 'refund events recorded under more than one event id';
export const ORDER_EVENTS_LOST = 'order events lost (order.created, order.paid, order.cancelled)';

const refundsOf = (order: StoredOrder) => order.refunds ?? [];
const sum = (refunds: readonly { amount: number }[]) => refunds.reduce((s, r) => s + r.amount, 0);

/** Refunds answered 201 that the order does not hold: a definite answer the final state contradicts. */
export function refundsNotStored({ input, ordersById, example }: LedgerContext): number {
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
export function refundRows(ctx: LedgerContext): LedgerRow[] {
  const { input } = ctx;
  const { exceed, disagree } = refundAmountMismatches(ctx);
  const twice = refundsAppliedTwice(ctx);
  const { refundEventsLost, refundEventsTwice, orderEventsLost } = publicEventMismatches(ctx);
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

/** Refunds beyond what was paid, and amounts.refunded or paymentStatus (stored, or the session's copy) off them. */
function refundAmountMismatches({ input, journeysByOrder, example }: LedgerContext): {
  exceed: number;
  disagree: number;
} {
  let exceed = 0;
  let disagree = 0;
  for (const order of input.orders) {
    const refunds = refundsOf(order);
    const succeeded = sum(refunds.filter((r) => r.status === 'succeeded'));
    const held = sum(refunds.filter((r) => r.status !== 'failed'));
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
  return { exceed, disagree };
}

/**
 * Refunds applied twice: one refund id stored twice, more refunds on an order than its merchant's distinct
 * Idempotency-Keys could have made, or one key answered with two refunds.
 */
function refundsAppliedTwice({ input, ordersById, example }: LedgerContext): number {
  const timesStored = new Map<string, number>();
  for (const order of input.orders)
    for (const r of refundsOf(order)) timesStored.set(r.id, (timesStored.get(r.id) ?? 0) + 1);
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
  return twice;
}

/** D49: every refund's events and every order's in the events API, each refund event under one event id. */
function publicEventMismatches({ input, example }: LedgerContext): {
  refundEventsLost: number;
  refundEventsTwice: number;
  orderEventsLost: number;
} {
  // The events API's order and refund events, by refund and by order.
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
  return { refundEventsLost, refundEventsTwice, orderEventsLost };
}
