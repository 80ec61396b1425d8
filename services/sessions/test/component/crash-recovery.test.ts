import { describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import {
  INTERNAL_API_HEADERS,
  ORDER_CANCELLED,
  ORDER_UPDATED,
  SessionEventV1,
  TOPICS,
  derivedId,
  orderChangedEvent,
  secretlyDerivedId,
  topicName,
} from '@checkout/contracts';
import { createEventProducer, createKafka } from '@checkout/kafka';
import {
  ID_DERIVATION_SECRET,
  newTenant,
  sessionRequest,
  stackWithEventsPerFile,
  uniqueName,
  type SessionEvents,
  type Stack,
} from './harness';

// A soak finding: a payment is stored once, in orders, and the session stores orders' answer
// afterwards. If the sessions process dies between the two, orders' order event (written with the payment, in
// its outbox) is what brings the session to `completed`, with exactly one checkout.session.completed (D28).

let stack: Stack;
let events: SessionEvents;
stackWithEventsPerFile('crash', (started) => ({ stack, events } = started));

describe('a payment orders applied but the session never stored', () => {
  it('When sessions died after orders applied the payment, then the order event completes the session with exactly one completed event (D27, D28)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant, { callbackUrl: 'https://hooks.example/{SESSION_ID}' });
    // What sessions' pay() sends to orders, without sessions ever storing the answer: the crash.
    const applied = await stack.orders('POST', `/internal/orders/${session.order.id}/payments`, tenant, {
      paymentId: uniqueName('pay'),
      method: 'card',
    });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({
      outcome: 'applied',
      order: { status: 'completed', paymentStatus: 'paid', amounts: { paid: 1223 } },
    });

    const completed = await eventually(
      async () => {
        const read = (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session;
        return read.status === 'completed' ? read : undefined;
      },
      { description: 'the order event completes the session', deadlineMs: 20_000 },
    );
    expect(completed).toMatchObject({ active: false, order: applied.body.order });

    const [message] = await eventually(() => (events.of(session.id).length > 0 ? events.of(session.id) : undefined), {
      description: 'completed event on Kafka',
    });
    const envelope = SessionEventV1.parse(message!.value);
    expect(envelope.type).toBe('checkout.session.completed');
    expect(envelope.body.session).toEqual(completed);

    // Stored, not only shown: the session is settled, refuses payment, and one event id was ever published.
    const again = await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {});
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('SESSION_NOT_PAYABLE');
    expect(events.of(session.id)).toHaveLength(1);
  });

  it('When orders cancelled the order and closed it before sessions stored anything, then the session is cancelled with no event (D25)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    expect((await stack.orders('POST', `/internal/orders/${session.order.id}/cancel`, tenant)).status).toBe(200);
    const read = await eventually(
      async () => {
        const current = (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session;
        return current.status === 'cancelled' ? current : undefined;
      },
      { description: 'the order.cancelled event reaches the session' },
    );
    expect(read).toMatchObject({ active: false, order: { status: 'cancelled' } });
    expect(events.of(session.id)).toHaveLength(0);
  });

  it('When order events arrive twice or out of order, then only a newer revision changes the session (at least once, any order)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const edited = await stack.orders('PATCH', `/internal/orders/${session.order.id}`, tenant, {
      metadata: { step: 'edited' },
    });
    expect(edited.status).toBe(200);
    const revision = Number(edited.headers[INTERNAL_API_HEADERS.orderRevision]);
    await eventually(
      async () =>
        (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session.order.metadata.step ===
        'edited',
      { description: 'the edit arrives' },
    );

    // Same key, so one partition and this order: a stale snapshot saying `cancelled` (it would cancel the session
    // for good if applied), a repeat of the current revision, then a newer one to know when the others were read.
    const producer = createEventProducer(createKafka({ clientId: uniqueName('stale'), brokers: stack.kafkaBrokers }));
    await producer.connect();
    const event = (
      type: typeof ORDER_UPDATED | typeof ORDER_CANCELLED,
      rev: number,
      order: Record<string, unknown>,
    ) => ({
      topic: topicName(stack.topicPrefix, TOPICS.orderEvents),
      key: session.order.id as string,
      value: JSON.stringify(
        orderChangedEvent({
          type,
          organizationId: tenant.organizationId,
          mode: tenant.mode,
          occurredAt: new Date(),
          revision: rev,
          order: order as { id: string },
        }),
      ),
      headers: { 'event-id': uniqueName('evt') },
    });
    try {
      await producer.send([
        event(ORDER_CANCELLED, revision - 1, { ...session.order, status: 'cancelled' }),
        event(ORDER_UPDATED, revision, { ...edited.body.order, metadata: { step: 'repeated' } }),
        event(ORDER_UPDATED, revision + 100, { ...edited.body.order, metadata: { step: 'newer' } }),
      ]);
    } finally {
      await producer.disconnect();
    }
    const read = await eventually(
      async () => {
        const current = (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session;
        return current.order.metadata.step === 'newer' ? current : undefined;
      },
      { description: 'the newer snapshot arrives' },
    );
    expect(read).toMatchObject({ status: 'pending', active: true, order: { status: 'open' } });
    expect(events.of(session.id)).toHaveLength(0);
  });
});

// Soak findings: the gateway keeps no 5xx answer (D42), so a merchant retries with the same
// Idempotency-Key after an unknown outcome. The gateway passes the key on (INTERNAL_API_HEADERS.idempotencyRecord) and
// the retry meets what the first try created instead of creating it again.
describe('a retry with the same Idempotency-Key after an unknown outcome (D42)', () => {
  it('When the first try created the order and died before the session, then the retry finishes that session instead of a 409 for its externalId (D37)', async () => {
    const tenant = newTenant();
    const record = uniqueName('record');
    const externalId = uniqueName('ext');
    const sessionId = secretlyDerivedId(
      'cs',
      tenant.mode,
      ID_DERIVATION_SECRET,
      `session\n${tenant.organizationId}\n${record}`,
    );
    // The first try: orders created the order under the session's id, then sessions died.
    const { items, taxes, discounts } = sessionRequest();
    const orphan = await stack.orders(
      'POST',
      '/internal/orders',
      tenant,
      { items, taxes, discounts, externalId },
      { 'idempotency-key': sessionId },
    );
    expect(orphan.status).toBe(201);

    const retried = await stack.api('POST', '/internal/sessions', tenant, sessionRequest({ externalId }), {
      [INTERNAL_API_HEADERS.idempotencyRecord]: record,
    });
    expect(retried.status).toBe(201);
    expect(retried.body.session).toMatchObject({
      id: sessionId,
      status: 'pending',
      order: { id: orphan.body.order.id, externalId },
    });
    // The id is not what anyone who knows the organization and the key could compute without the secret.
    expect(retried.body.session.id).not.toBe(
      derivedId('cs', tenant.mode, `session\n${tenant.organizationId}\n${record}`),
    );

    // The session was stored by the retry; a third try finds it, and a request without the key is a new one (409).
    const third = await stack.api('POST', '/internal/sessions', tenant, sessionRequest({ externalId }), {
      [INTERNAL_API_HEADERS.idempotencyRecord]: record,
    });
    expect(third.status).toBe(201);
    expect(third.body.session.id).toBe(sessionId);
    const unkeyed = await stack.api('POST', '/internal/sessions', tenant, sessionRequest({ externalId }));
    expect(unkeyed.status).toBe(409);
  });

  it('When a partial payment was applied and its answer lost, then the retry is the same payment: applied once (D27)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const record = uniqueName('record');
    const pay500 = (idempotencyRecord: string) => {
      const headers = { [INTERNAL_API_HEADERS.idempotencyRecord]: idempotencyRecord };
      return stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, { amount: 500 }, headers);
    };
    const first = await pay500(record);
    expect(first.status).toBe(200);
    const retried = await pay500(record);
    expect(retried.status).toBe(200);
    expect(retried.body.session).toMatchObject({ status: 'pending', order: { amounts: { paid: 500 } } });
    const order = await stack.orders('GET', `/internal/orders/${session.order.id}`, tenant);
    expect(order.body.order.amounts.paid).toBe(500);

    // Another key is another payment.
    const second = await pay500(uniqueName('record'));
    expect(second.body.session.order.amounts.paid).toBe(1000);
  });

  it('When the paying request completed the session and its answer was lost, then the retry answers the completed session and pays nothing more (D27)', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const headers = { [INTERNAL_API_HEADERS.idempotencyRecord]: uniqueName('record') };
    expect(
      (await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {}, headers)).status,
    ).toBe(200);
    const retried = await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {}, headers);
    expect(retried.status).toBe(200);
    expect(retried.body.session).toMatchObject({
      status: 'completed',
      order: { amounts: { paid: session.order.amounts.total } },
    });
    // A payment under another key is refused: the session is settled.
    const other = await stack.api(
      'POST',
      `/internal/test-helpers/sessions/${session.id}/pay`,
      tenant,
      {},
      { [INTERNAL_API_HEADERS.idempotencyRecord]: uniqueName('record') },
    );
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('SESSION_NOT_PAYABLE');
    await eventually(() => (events.of(session.id).length > 0 ? true : undefined), {
      description: 'completed event on Kafka',
    });
    expect(events.of(session.id)).toHaveLength(1);
  });
});
