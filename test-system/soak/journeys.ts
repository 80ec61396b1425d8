import { randomBytes } from 'node:crypto';
import type { CheckoutSession } from '@checkout/contracts';
import { JourneyCalls } from './journey-calls';
import type { Items, Journey, JourneyOptions, SessionKind } from './journey-types';

// One customer journey of the soak's load (load.ts starts them), recorded with what the merchant asked for, so the
// ledger can tell lost from duplicated.
//
// Retries are what a careful merchant does: an answer that is missing, 5xx or 429 is retried for up to the step's
// deadline, and only where retrying is safe in the API: creates carry an externalId (D37: a repeat is a 409, never a
// second order) and session creates an Idempotency-Key too (D42: a retry finishes the first try), PATCH and cancel
// are idempotent, a processor notification carries its payment id (D27: applied at most once), a test-helper payment
// carries an Idempotency-Key (D42: the same key is the same payment id, applied at most once), and so does every
// refund (D48: the same key is the same refund id, applied at most once); a processor's refund notification names
// its refund (applied at most once).

/** Runs one journey to its end; `stepDeadline` says how long a step may still retry (shorter as the load ends). */
export async function runJourney(
  journey: Journey,
  options: JourneyOptions,
  roll: number,
  stepDeadline: () => number,
): Promise<void> {
  const calls = new JourneyCalls(journey, options, stepDeadline);
  const items = [
    { name: `Soak item ${journey.n}`, quantity: 1 + (journey.n % 3), unitPrice: 150 + Math.floor(roll * 4_850) },
  ];
  if (journey.kind === 'refund-cancelled') await refundCancelledJourney(calls, items);
  else if (journey.kind === 'order') await orderJourney(calls, items, roll);
  else await sessionJourney(calls, journey.kind, items, roll);
}

/** An order that never received money has nothing refundable: 400 REFUND_FAILED (D48). */
async function refundCancelledJourney(calls: JourneyCalls, items: Items): Promise<void> {
  const order = await calls.createOrder(items);
  if (!order) return;
  await calls.retried('cancel-order', 'POST', `/v0/orders/${order.id}/cancel`, 'POST /v0/orders/:id/cancel');
  await calls.refund(order.id, 100);
}

async function orderJourney(calls: JourneyCalls, items: Items, roll: number): Promise<void> {
  const order = await calls.createOrder(items);
  if (!order) return;
  await calls.retried('patch-order', 'PATCH', `/v0/orders/${order.id}`, 'PATCH /v0/orders/:id', {
    metadata: { soak: 'yes', n: String(calls.journey.n) },
    items: [...items, { name: 'Extra', quantity: 1, unitPrice: 99 }],
  });
  if (roll < 0.5)
    await calls.retried('cancel-order', 'POST', `/v0/orders/${order.id}/cancel`, 'POST /v0/orders/:id/cancel');
  await calls.retried('get-order', 'GET', `/v0/orders/${order.id}`, 'GET /v0/orders/:id');
}

async function sessionJourney(calls: JourneyCalls, kind: SessionKind, items: Items, roll: number): Promise<void> {
  const session = await calls.createSession(items);
  if (!session) return;
  await SESSION_JOURNEYS[kind](calls, session, roll);
  await calls.retried('get-session', 'GET', sessionPath(session), 'GET /v0/checkout/sessions/:id');
}

const sessionPath = (session: CheckoutSession) => `/v0/checkout/sessions/${session.id}`;
const processorPaymentId = () => `pay_soak_${randomBytes(8).toString('hex')}`;

/** What each kind of session journey does once its session exists. */
const SESSION_JOURNEYS: Record<
  SessionKind,
  (calls: JourneyCalls, session: CheckoutSession, roll: number) => Promise<unknown>
> = {
  'pay-full': (calls, session) => calls.pay(session, { method: 'card' }),
  'pay-partial': async (calls, session) => {
    const total = session.order.amounts.total;
    const first = Math.max(1, Math.floor(total / 3));
    await calls.pay(session, { method: 'stablecoin', amount: first });
    await calls.retried('patch-session', 'PATCH', sessionPath(session), 'PATCH /v0/checkout/sessions/:id', {
      sessionData: { step: 'partially-paid' },
    });
    await calls.pay(session, { method: 'stablecoin', amount: total - first });
  },
  'decline-then-pay': async (calls, session) => {
    await calls.pay(session, { method: 'card', outcome: 'declined' });
    await calls.pay(session, { method: 'card' });
  },
  expire: async (calls, session) => {
    await calls.retried('patch-session', 'PATCH', sessionPath(session), 'PATCH /v0/checkout/sessions/:id', {
      extendExpiry: 5,
      sessionData: { note: 'extended' },
    });
    await calls.retried(
      'expire',
      'POST',
      `/v0/test_helpers/checkout/sessions/${session.id}/expire`,
      'POST /v0/test_helpers/checkout/sessions/:id/expire',
    );
  },
  cancel: async (calls, session) => {
    await calls.retried('patch-order', 'PATCH', `/v0/orders/${session.order.id}`, 'PATCH /v0/orders/:id', {
      metadata: { cancelling: 'yes' },
    });
    await calls.retried('cancel-order', 'POST', `/v0/orders/${session.order.id}/cancel`, 'POST /v0/orders/:id/cancel');
  },
  'live-processor': async (calls, session) => {
    // A processor that captures in two parts and, as processors do, sends one notification twice.
    const total = session.order.amounts.total;
    const first = Math.max(1, Math.floor(total / 2));
    const [a, b] = [processorPaymentId(), processorPaymentId()];
    await calls.notify(session, a, first);
    await calls.notify(session, a, first);
    if (total - first > 0) await calls.notify(session, b, total - first);
  },
  refund: async (calls, session) => {
    // Paid in full, then: a partial refund sent twice at once with one Idempotency-Key (one refund), three
    // refunds at once that together ask for more than is left (some refused), and the rest, if any.
    await calls.pay(session, { method: 'card' });
    const total = session.order.amounts.total;
    const orderId = session.order.id;
    const first = Math.max(1, Math.floor(total / 4));
    const intent = await calls.refund(orderId, first);
    await calls.refund(orderId, first, intent);
    const third = Math.max(1, Math.floor(total / 3));
    await Promise.all([calls.refund(orderId, third), calls.refund(orderId, third), calls.refund(orderId, third)]);
    await calls.refund(orderId, undefined);
  },
  'refund-overpaid': async (calls, session, roll) => {
    // An overpayment (the stablecoin simulator pays what it is told) and its excess refunded.
    const extra = 1 + Math.floor(roll * 500);
    await calls.pay(session, { method: 'stablecoin', amount: session.order.amounts.total + extra });
    await calls.refund(session.order.id, extra);
  },
  'refund-live': async (calls, session, roll) => {
    // Paid by the live processor, refunded (pending), then settled by the processor's notification, sent twice.
    const total = session.order.amounts.total;
    await calls.notify(session, processorPaymentId(), total);
    const intent = await calls.refund(session.order.id, roll < 0.5 ? Math.max(1, Math.floor(total / 2)) : undefined);
    const refundId = intent.refundIds[0];
    if (refundId) {
      const outcome = roll < 0.8 ? 'succeeded' : 'failed';
      await calls.notifyRefund(refundId, outcome);
      await calls.notifyRefund(refundId, outcome);
    }
  },
};
