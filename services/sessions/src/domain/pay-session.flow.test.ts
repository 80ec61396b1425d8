import { describe, expect, it } from 'vitest';
import { isDomainError } from '@checkout/errors';
import { createLogger } from '@checkout/logger';
import { CreateSessionRequest, SESSION_EVENT_TYPES } from '@checkout/contracts';
import type { OutboxRelay } from '@checkout/kafka';
import { buildSessionEvent } from '@checkout/testing';
import type { Orders, OrderSnapshot, OrderView, Sessions } from './ports';
import type { SessionDocument } from '../store/session.document';
import { paySession, type PaymentAttempt } from './pay-session.flow';
import { createSession } from './create-session.flow';
import type { SessionDeps } from './session-writes';

// The pay flow's answers (flow 3) on in-memory stand-ins for sessions' store, orders and the relay: what it
// stores, what it publishes, and whether it names a replay as one. The real round trips are in
// test/component/payments.test.ts and round-trips.test.ts.

const NOW = new Date('2026-11-25T10:00:00.000Z');
const SCOPE = { organizationId: 'org_unit', mode: 'test' as const };
const PAID_ORDER = buildSessionEvent({ type: 'checkout.session.completed' }).body.session.order;
const { paidAt: _paidAt, ...unpaid } = PAID_ORDER;
const OPEN_ORDER: OrderView = {
  ...unpaid,
  status: 'open',
  paymentStatus: 'unpaid',
  amounts: { ...PAID_ORDER.amounts, paid: 0 },
};

/**
 * Sessions' store, orders (applies a payment id once) and the relay, in memory; the session made by createSession.
 * With `consumerWinsTheRace`, orders' order.paid event reaches this service's consumer before orders' answer reaches
 * the pay flow: the consumer completes the session and its event is still in the outbox (its publish in flight).
 */
async function world(options: { consumerWinsTheRace?: boolean } = {}) {
  const applied = new Set<string>();
  let order: OrderSnapshot = { order: OPEN_ORDER, revision: 1 };
  let stored: SessionDocument | undefined;
  const session = (): SessionDocument => {
    if (!stored) throw new Error('no session stored');
    return stored;
  };
  const published: string[] = [];
  // The named writes the pay flow makes, each conditional on what the real one's filter holds (a stand-in: the
  // filters themselves run on the real engine in test/component/named-writes.test.ts).
  const write = (
    holds: (doc: SessionDocument) => boolean,
    change: (doc: SessionDocument) => Partial<SessionDocument>,
  ): Promise<SessionDocument | null> =>
    Promise.resolve(holds(session()) ? (stored = { ...session(), ...change(session()) }) : null);
  const store: Pick<
    Sessions,
    'insertSession' | 'getSession' | 'complete' | 'expire' | 'cancel' | 'takeOrderCopy' | 'countDeclined'
  > = {
    insertSession: (scope, doc) =>
      Promise.resolve({ created: true as const, doc: (stored = { ...doc, ...scope } as SessionDocument) }),
    getSession: () => Promise.resolve(session()),
    complete: (_scope, read, { copy, event, now }) =>
      write(
        (doc) => doc.status === 'pending' && doc.orderRevision === read.orderRevision,
        (doc) => ({
          status: 'completed',
          updatedAt: now,
          ...copy,
          outbox: [...doc.outbox, event],
          outboxPending: true,
        }),
      ),
    expire: (_scope, read, { copy, expiresAt, event, now }) =>
      write(
        (doc) => doc.status === 'pending' && doc.orderRevision === read.orderRevision,
        (doc) => ({
          status: 'expired',
          expiresAt,
          updatedAt: now,
          ...copy,
          outbox: [...doc.outbox, event],
          outboxPending: true,
        }),
      ),
    cancel: (_scope, read, { copy, now }) =>
      write(
        (doc) => doc.status === 'pending' && doc.orderRevision === read.orderRevision,
        () => ({ status: 'cancelled', updatedAt: now, ...copy }),
      ),
    takeOrderCopy: (_scope, _id, copy, settledOnly) =>
      write(
        (doc) => doc.orderRevision < copy.orderRevision && (!settledOnly || doc.status !== 'pending'),
        () => copy,
      ),
    countDeclined: (_scope, _id, now) =>
      write(
        (doc) => doc.status === 'pending',
        (doc) => ({ failedAttempts: doc.failedAttempts + 1, updatedAt: now }),
      ),
  };
  let asked = 0;
  const applyPayment: Orders['applyPayment'] = (_scope, _orderId, payment) => {
    asked += 1;
    if (applied.has(payment.paymentId)) return Promise.resolve({ ...order, outcome: 'already_applied' });
    applied.add(payment.paymentId);
    order = { order: PAID_ORDER, revision: order.revision + 1 };
    if (options.consumerWinsTheRace) {
      const event = { type: SESSION_EVENT_TYPES.completed };
      stored = {
        ...session(),
        status: 'completed',
        orderJson: JSON.stringify(PAID_ORDER),
        orderRevision: order.revision,
        outbox: [
          { eventId: 'evt_consumer', topic: 't', key: session()._id, value: JSON.stringify(event), createdAt: NOW },
        ],
        outboxPending: true,
      };
    }
    return Promise.resolve({ ...order, outcome: 'applied' });
  };
  const orders: Pick<Orders, 'create' | 'applyPayment' | 'closePayments' | 'get'> = {
    create: () => Promise.resolve({ ...order, created: true }),
    applyPayment,
    closePayments: () => Promise.resolve(order),
    get: () => Promise.resolve(order),
  };
  const relay: Pick<OutboxRelay<SessionDocument>, 'publishWritten'> = {
    publishWritten: (doc) => {
      published.push(...doc.outbox.map((entry) => (JSON.parse(entry.value) as { type: string }).type));
      // As markSent does: the outbox emptied.
      stored = { ...session(), outbox: [], outboxPending: false };
      return Promise.resolve(doc.outbox.length);
    },
  };
  const deps: SessionDeps = {
    store: store as unknown as Sessions,
    orders: orders as Orders,
    relay: relay as OutboxRelay<SessionDocument>,
    sessionEventsTopic: 'unit.checkout.session.events',
    checkoutBaseUrl: 'https://checkout.example/checkout',
    clock: () => NOW,
    logger: createLogger('sessions', { level: 'silent' }),
  };
  const request = CreateSessionRequest.parse({
    items: [{ name: 'Widget', quantity: 1, unitPrice: PAID_ORDER.amounts.total }],
  });
  await createSession({ ...deps, idSecret: 'unit' }, SCOPE, request, {
    organizationName: 'Unit Coffee',
    defaultCallbackUrl: null,
    enabledPaymentMethods: ['card'],
  });
  return { deps, published, applyPayment, session, ordersAsked: () => asked };
}

const capture = (paymentId: string): PaymentAttempt => ({
  source: 'processor',
  paymentId,
  method: 'card',
  amount: PAID_ORDER.amounts.total,
  capturedAt: NOW,
});

describe('paySession (flow 3)', () => {
  it('When orders applies the payment, then succeeded: the session is completed and its completed event published once', async () => {
    const w = await world();
    const { result, view } = await paySession(w.deps, w.session(), capture('pay_test_first'));
    expect(result).toBe('succeeded');
    expect(view.doc.status).toBe('completed');
    expect(view.order.status).toBe('completed');
    expect(w.published).toEqual([SESSION_EVENT_TYPES.completed]);
  });

  it("When the order event completes the session before orders' answer reaches the pay flow, then the pay answers once that event is published (flow 3)", async () => {
    const w = await world({ consumerWinsTheRace: true });
    const { result, view } = await paySession(w.deps, w.session(), capture('pay_test_raced'));
    expect(result).toBe('succeeded');
    expect(view.doc.status).toBe('completed');
    // The consumer's event, sent by the pay flow since the consumer's publish had not landed when it answered.
    expect(w.published).toEqual([SESSION_EVENT_TYPES.completed]);
    expect(w.session().outbox).toEqual([]);
  });

  it('When the same payment id comes again (D27), then replayed: nothing is stored or published again', async () => {
    const w = await world();
    await paySession(w.deps, w.session(), capture('pay_test_twice'));
    const before = w.session();
    const { result, view } = await paySession(w.deps, w.session(), capture('pay_test_twice'));
    expect(result).toBe('replayed');
    expect(view.doc.status).toBe('completed');
    expect(w.session()).toBe(before);
    expect(w.published).toEqual([SESSION_EVENT_TYPES.completed]);
  });

  it('When orders applied it before this process died (a retry), then replayed, and the session completes with its event', async () => {
    const w = await world();
    await w.applyPayment(SCOPE, OPEN_ORDER.id, { paymentId: 'pay_test_crashed', method: 'card' });
    const { result, view } = await paySession(w.deps, w.session(), capture('pay_test_crashed'));
    expect(result).toBe('replayed');
    expect(view.doc.status).toBe('completed');
    expect(w.published).toEqual([SESSION_EVENT_TYPES.completed]);
  });

  it('When a settled session gets a payment without an id of its own, then SESSION_NOT_PAYABLE and orders is not asked', async () => {
    const w = await world();
    await paySession(w.deps, w.session(), capture('pay_test_once'));
    const attempt: PaymentAttempt = { source: 'simulator', method: 'card', outcome: 'succeeded' };
    const asked = w.ordersAsked();
    const refused = await paySession(w.deps, w.session(), attempt).catch((err: unknown) => err);
    expect(isDomainError(refused) && refused.code).toBe('SESSION_NOT_PAYABLE');
    expect(w.ordersAsked()).toBe(asked);
    expect(w.published).toEqual([SESSION_EVENT_TYPES.completed]);
  });
});
