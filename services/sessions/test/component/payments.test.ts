import { describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { SessionEventV1, signProcessorPayload } from '@checkout/contracts';
import {
  PROCESSOR_SECRET,
  newTenant,
  sessionEventsOnTopic,
  stackWithEventsPerFile,
  uniqueName,
  type SessionEvents,
  type Stack,
  type Tenant,
} from './harness';

let stack: Stack;
let events: SessionEvents;
stackWithEventsPerFile('pay', (started) => ({ stack, events } = started));

/** A payment through the test helper (no processor), `body` as its request. */
const payWithHelper = (tenant: Tenant, sessionId: string, body: Record<string, unknown> = {}) =>
  stack.api('POST', `/internal/test-helpers/sessions/${sessionId}/pay`, tenant, body);

/**
 * A new session of `tenant` whose payment through the helper races `other` on it; then the order and the session
 * as stored once both have answered.
 */
async function raceAPayment<T>(tenant: Tenant, other: (session: any) => Promise<T>) {
  const session = await stack.createSession(tenant);
  const [pay, answer] = await Promise.all([payWithHelper(tenant, session.id), other(session)]);
  const order = (await stack.orders('GET', `/internal/orders/${session.order.id}`, tenant)).body.order;
  const read = (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session;
  return { session, pay, other: answer, order, read };
}

describe('POST /internal/test-helpers/sessions/:id/pay', () => {
  it('When paid in full, then order completed and checkout.session.completed is on Kafka before the response (flow 3, D28)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant, {
      externalId: uniqueName('ext'),
      callbackUrl: 'https://hooks.example/{SESSION_ID}',
    });
    const before = await sessionEventsOnTopic(stack);
    const paid = await payWithHelper(tenant, session.id);
    // Measured the moment the response is in: no waiting.
    expect(await sessionEventsOnTopic(stack)).toBeGreaterThan(before);
    expect(paid.status).toBe(200);
    expect(paid.body.session).toMatchObject({
      status: 'completed',
      active: false,
      order: { status: 'completed', paymentStatus: 'paid', amounts: { paid: 1223 } },
    });
    expect(paid.body.session.order.paidAt).toBeDefined();

    const [message] = await eventually(() => (events.of(session.id).length === 1 ? events.of(session.id) : undefined), {
      description: 'completed event',
    });
    const envelope = SessionEventV1.parse(message!.value);
    expect(envelope.type).toBe('checkout.session.completed');
    expect(message!.eventId).toBe(envelope.eventId);
    expect(envelope.callbackUrl).toBe(`https://hooks.example/${session.id}`);
    expect(Object.keys(envelope.body).sort()).toEqual(['createdAt', 'event', 'id', 'session']);
    // The webhook's session is what GET returns (spec: "Identical to the session embedded in the completed event").
    const read = await stack.api('GET', `/internal/sessions/${session.id}`, tenant);
    expect(envelope.body.session).toEqual(read.body.session);

    const again = await payWithHelper(tenant, session.id);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('SESSION_NOT_PAYABLE');
  });

  it('When declined, then failedAttempts + 1, still pending, no event (D27)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const res = await payWithHelper(tenant, session.id, {
      outcome: 'declined',
    });
    expect(res.status).toBe(200);
    expect(res.body.session).toMatchObject({
      status: 'pending',
      failedAttempts: 1,
      order: { paymentStatus: 'unpaid' },
    });
    const twice = await payWithHelper(tenant, session.id, {
      outcome: 'declined',
      method: 'card',
    });
    expect(twice.body.session.failedAttempts).toBe(2);
    expect(events.of(session.id)).toHaveLength(0);
  });

  it('When a stablecoin pays part, then partially_paid, pending and no event; the rest completes it, overpaid allowed (D28)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const part = await payWithHelper(tenant, session.id, {
      method: 'stablecoin',
      amount: 200,
    });
    expect(part.body.session).toMatchObject({
      status: 'pending',
      active: true,
      order: { status: 'open', paymentStatus: 'partially_paid', amounts: { paid: 200 } },
    });
    expect(await sessionEventsOnTopic(stack).then(() => events.of(session.id).length)).toBe(0);
    const rest = await payWithHelper(tenant, session.id, {
      method: 'stablecoin',
      amount: 2000,
    });
    expect(rest.body.session).toMatchObject({
      status: 'completed',
      order: { status: 'completed', paymentStatus: 'overpaid', amounts: { paid: 2200 } },
    });
    await eventually(() => events.of(session.id).length === 1, { description: 'one completed event' });
  });

  it('When the helper pays with a method the session does not offer, then 400 SESSION_NOT_PAYABLE and nothing is paid (D26, D29)', async () => {
    const tenant = newTenant({
      settings: { organizationName: 'Card only', defaultCallbackUrl: null, enabledPaymentMethods: ['card'] },
    });
    const session = await stack.createSession(tenant);
    const refused = await payWithHelper(tenant, session.id, {
      method: 'stored_value',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('SESSION_NOT_PAYABLE');
    const order = (await stack.orders('GET', `/internal/orders/${session.order.id}`, tenant)).body.order;
    expect(order.amounts.paid).toBe(0);
    const card = await payWithHelper(tenant, session.id);
    expect(card.body.session.status).toBe('completed');
  });

  it('When the helper is called in live mode, then 404 NOT_FOUND (D29)', async () => {
    const tenant = newTenant({ mode: 'live' });
    const session = await stack.createSession(tenant);
    const res = await payWithHelper(tenant, session.id);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('When pay and cancel race 30 times, then each run ends in exactly one consistent outcome (D25)', async () => {
    const tenant = newTenant();
    for (let run = 0; run < 30; run += 1) {
      const race = await raceAPayment(tenant, (s) =>
        stack.orders('POST', `/internal/orders/${s.order.id}/cancel`, tenant),
      );
      const { session, pay, other: cancel, order, read } = race;
      if (order.status === 'completed') {
        expect(pay.status).toBe(200);
        expect(cancel.status).toBe(400);
        expect(read.status).toBe('completed');
        await eventually(() => events.of(session.id).length === 1, { description: `completed event of run ${run}` });
      } else {
        expect(order.status).toBe('cancelled');
        expect(order.amounts.paid).toBe(0);
        expect(cancel.status).toBe(200);
        expect(pay.status).toBe(400);
        expect(pay.body.code).toBe('SESSION_NOT_PAYABLE');
        expect(read.status).toBe('cancelled');
        // And the stored status catches up through the orders.events consumer.
        await eventually(async () => {
          const again = await stack.api('PATCH', `/internal/sessions/${session.id}`, tenant, {});
          return again.body.session.status === 'cancelled' && again.body.session.active === false;
        });
      }
    }
    // Cancelled sessions fired nothing, completed ones exactly one each.
    const perSession = new Map<string, Set<string>>();
    for (const m of events.messages) perSession.set(m.key, (perSession.get(m.key) ?? new Set()).add(m.eventId));
    for (const ids of perSession.values()) expect(ids.size).toBe(1);
  });
});

describe('a payment racing the other writers of its session', () => {
  it('When a payment and the expire helper race 20 times, then each run ends in one consistent outcome with exactly one event (D21, D27)', async () => {
    const tenant = newTenant();
    for (let run = 0; run < 20; run += 1) {
      const race = await raceAPayment(tenant, (s) =>
        stack.api('POST', `/internal/test-helpers/sessions/${s.id}/expire`, tenant),
      );
      const { session, pay, other: expire, order, read } = race;
      const outcome = order.status === 'completed' ? 'completed' : 'expired';
      if (outcome === 'completed') {
        expect([pay.status, expire.status, expire.body.code]).toEqual([200, 400, 'SESSION_UPDATE_FAILED']);
      } else {
        expect(order.amounts.paid).toBe(0);
        expect([expire.status, pay.status, pay.body.code]).toEqual([200, 400, 'SESSION_NOT_PAYABLE']);
      }
      expect(read.status).toBe(outcome);
      const [only] = await eventually(() => (events.of(session.id).length > 0 ? events.of(session.id) : undefined), {
        description: `the ${outcome} event of run ${run}`,
      });
      expect(SessionEventV1.parse(only!.value).type).toBe(`checkout.session.${outcome}`);
      expect(events.of(session.id)).toHaveLength(1);
    }
  });

  it('When PATCHes of sessionData race a payment, then both land: the session completes once and keeps every key (D23, D28)', async () => {
    const tenant = newTenant();
    for (let run = 0; run < 10; run += 1) {
      const patch = (s: { id: string }, key: string) =>
        stack.api('PATCH', `/internal/sessions/${s.id}`, tenant, { sessionData: { [key]: run } });
      const race = await raceAPayment(tenant, (s) => Promise.all(['a', 'b', 'c'].map((key) => patch(s, key))));
      const { session, pay, other: patches, read } = race;
      expect(pay.status).toBe(200);
      for (const answer of patches) expect(answer.status).toBe(200);
      expect(read).toMatchObject({ status: 'completed', sessionData: { a: run, b: run, c: run } });
      const [completed] = await eventually(() =>
        events.of(session.id).length > 0 ? events.of(session.id) : undefined,
      );
      // The event shows the session as its one write stored it: pending's fields as they were at that moment.
      expect(SessionEventV1.parse(completed!.value).body.session.status).toBe('completed');
      expect(events.of(session.id)).toHaveLength(1);
    }
  });
});

describe('POST /internal/processor/notifications (D27)', () => {
  async function notify(body: Record<string, unknown>, options: { secret?: string; at?: number } = {}) {
    const raw = JSON.stringify(body);
    const t = options.at ?? Math.floor(Date.now() / 1000);
    const signature = signProcessorPayload(options.secret ?? PROCESSOR_SECRET, raw, t);
    const res = await fetch(`${stack.sessionsUrl}/internal/processor/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-processor-signature': signature },
      body: raw,
    });
    return { status: res.status, body: (await res.json()) as any };
  }
  /** What the processor notifies of a capture of `amount` on the session (a new payment id each call). */
  function capture(sessionId: string, amount = 1223, method = 'card') {
    return { paymentId: uniqueName('pi'), sessionId, amount, method, capturedAt: new Date().toISOString() };
  }

  it('When a signed notification arrives twice, then the payment is applied once and the session completes once', async () => {
    const tenant = newTenant({ mode: 'live' });
    const session = await stack.createSession(tenant);
    const note = capture(session.id);
    const first = await notify(note);
    expect(first.status).toBe(200);
    expect(first.body.session).toMatchObject({
      status: 'completed',
      order: { amounts: { paid: 1223 }, paymentStatus: 'paid' },
    });
    const second = await notify(note);
    expect(second.status).toBe(200);
    expect(second.body.session.order.amounts.paid).toBe(1223);
    await eventually(() => events.of(session.id).length === 1, { description: 'one completed event' });
    expect(events.of(session.id)[0]!.value.mode).toBe('live');
  });

  it('When a partial notification id repeats, then it counts once', async () => {
    const tenant = newTenant({ mode: 'live' });
    const session = await stack.createSession(tenant);
    const note = capture(session.id, 100, 'stablecoin');
    await notify(note);
    const again = await notify(note);
    expect(again.body.session.order.amounts.paid).toBe(100);
    expect(again.body.session.status).toBe('pending');
  });

  it('When the signature is wrong, stale or missing, then 401 UNAUTHORIZED and nothing is applied', async () => {
    const tenant = newTenant({ mode: 'live' });
    const session = await stack.createSession(tenant);
    const note = capture(session.id);
    const wrong = await notify(note, { secret: 'not-the-processor-secret' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('UNAUTHORIZED');
    expect((await notify(note, { at: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
    const missing = await fetch(`${stack.sessionsUrl}/internal/processor/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(note),
    });
    expect(missing.status).toBe(401);
    const read = await stack.api('GET', `/internal/sessions/${session.id}`, tenant);
    expect(read.body.session.order.amounts.paid).toBe(0);
  });

  it('When the session is unknown, then 404 SESSION_NOT_FOUND', async () => {
    const res = await notify(capture('cs_live_unknown000000000000000000', 1));
    expect(res.status).toBe(404);
  });
});
