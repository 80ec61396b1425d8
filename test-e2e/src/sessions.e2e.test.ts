import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, topicOffsets, type KafkaClient } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { request } from 'undici';
import { SessionEventV1, TOPICS, topicName } from '@checkout/contracts';
import { eventually } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput, buildSessionInput, uniqueId } from './support/factories';

// The checkout-session API end to end through the gateway (orders + sessions + gateway in-process, on real
// Kafka and a real MongoDB-compatible server). The webhook-dispatcher is not part of this stack: events are
// checked where sessions publishes them, on the checkout.session.events topic.

const DEADLINE = { deadlineMs: 20_000 };
const TOTAL = 1125; // buildSessionInput(): 2 × 350 + 1 × 425, no tax or discount
const MINUTE = 60_000;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let stack: InProcessStack;
let topic: TopicProbe;

beforeAll(async () => {
  stack = await startStack(
    {
      extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '1000000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' } },
    },
    ['orders', 'sessions', 'gateway'],
  );
  topic = await TopicProbe.start(
    stack.env.sessions.KAFKA_BROKERS!.split(','),
    topicName(stack.env.sessions.TOPIC_PREFIX, TOPICS.sessionEvents),
  );
});

afterAll(async () => {
  await topic?.stop();
  await stack?.stop();
});

// ---------------------------------------------------------------------------------------------------------
// helpers

interface Merchant {
  organizationId: string;
  test: Api;
  live: Api;
}

/** Every test gets an organization of its own (own keys, own records). */
async function newMerchant(): Promise<Merchant> {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId('Sessions Org'));
  return {
    organizationId: org.organizationId,
    test: new Api(stack.gatewayUrl, org.testKey),
    live: new Api(stack.gatewayUrl, org.liveKey),
  };
}

async function createSession(api: Api, overrides: Record<string, unknown> = {}) {
  const response = await api.post('/v0/checkout/sessions', buildSessionInput(overrides));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.session;
}

async function getSession(api: Api, id: string) {
  const response = await api.get(`/v0/checkout/sessions/${id}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.session;
}

const pay = (api: Api, id: string, body: Record<string, unknown> = {}) =>
  api.post(`/v0/test_helpers/checkout/sessions/${id}/pay`, body);
const expire = (api: Api, id: string) => api.post(`/v0/test_helpers/checkout/sessions/${id}/expire`);
const lifetimeMs = (session: { createdAt: string; expiresAt: string }) =>
  Date.parse(session.expiresAt) - Date.parse(session.createdAt);
/** Shifts one side of a race (not a wait for a condition: nothing is awaited but the call itself). */
const delayed = <T>(ms: number, call: () => Promise<T>): Promise<T> =>
  new Promise((resolve, reject) => setTimeout(() => void call().then(resolve, reject), ms));
const detailPaths = (body: { details?: { path: string }[] }) => (body.details ?? []).map((d) => d.path);

interface TopicMessage {
  partition: number;
  offset: number;
  key: string;
  eventIdHeader: string;
  value: any;
}

/**
 * Reads the sessions events topic from the beginning with a fresh group. `barrier()` answers once every message
 * that was on the topic when it was called has been consumed, which lets a test say "no event" without sleeping.
 */
class TopicProbe {
  readonly messages: TopicMessage[] = [];
  private readonly consumedUpTo = new Map<number, number>();

  private stopReading: () => Promise<void> = async () => {};

  private constructor(
    private readonly name: string,
    private readonly kafka: KafkaClient,
  ) {}

  static async start(brokers: string[], name: string): Promise<TopicProbe> {
    const kafka = createKafka({ clientId: uniqueId('e2e-probe'), brokers });
    const probe = new TopicProbe(name, kafka);
    const reading = await readTopic({
      kafka,
      topic: name,
      groupId: `${name}.${uniqueId('e2e-probe')}`,
      onMessage: ({ partition, offset, key, headers, value }) => {
        probe.messages.push({
          partition,
          offset: Number(offset),
          key: key ?? '',
          eventIdHeader: headers['event-id'] ?? '',
          value: JSON.parse(value || 'null'),
        });
        probe.consumedUpTo.set(partition, Math.max(probe.consumedUpTo.get(partition) ?? -1, Number(offset)));
      },
    });
    probe.stopReading = () => reading.stop();
    return probe;
  }

  /** Partition → high-water mark (the offset the next message will get) right now. */
  async highWaterMarks(): Promise<Map<number, number>> {
    return new Map([...(await topicOffsets(this.kafka, this.name))].map(([partition, { high }]) => [partition, high]));
  }

  /** Resolves when everything on the topic at the time of the call has been consumed. */
  async barrier(): Promise<void> {
    const marks = await this.highWaterMarks();
    await eventually(
      () => [...marks].every(([partition, high]) => high === 0 || (this.consumedUpTo.get(partition) ?? -1) >= high - 1),
      {
        ...DEADLINE,
        description: 'the probe to consume the whole topic',
      },
    );
  }

  /**
   * Distinct events of one session (the relay publishes at least once: a duplicate message carries the same
   * event id, and consumers dedupe on it).
   */
  eventsOf(sessionId: string): TopicMessage[] {
    return [
      ...new Map(this.messages.filter((m) => m.key === sessionId).map((m) => [m.value?.eventId as string, m])).values(),
    ];
  }

  async stop(): Promise<void> {
    await this.stopReading().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------------------

describe('POST /v0/checkout/sessions', () => {
  it('When a session is created with defaults, then 201 {session}: pending, active, the full open order, url on the checkout base, 60-minute expiry (D1, D22, D39)', async () => {
    const { test } = await newMerchant();
    const response = await test.post('/v0/checkout/sessions', buildSessionInput());
    expect(response.status).toBe(201);
    expect(response.headers['x-request-id']).toBeTruthy();
    expect(Object.keys(response.body)).toEqual(['session']);
    const { session } = response.body;
    expect(session.id).toMatch(/^cs_test_[0-9A-Za-z]{24}$/);
    expect(session.url).toBe(`${stack.checkoutBaseUrl}/${session.id}`);
    expect(session).toMatchObject({
      status: 'pending',
      active: true,
      failedAttempts: 0,
      callbackUrl: null,
      sessionData: {},
    });
    expect(session.requireFromCustomer).toEqual({ phone: false, shippingAddress: false, location: false });
    expect(session.successUrl).toBe(`https://merchant.example/thanks?session=${session.id}`);
    expect(session).not.toHaveProperty('customerId');
    for (const field of ['createdAt', 'updatedAt', 'expiresAt']) expect(session[field]).toMatch(ISO_MS);
    expect(lifetimeMs(session)).toBe(60 * MINUTE);
    const { order } = session;
    expect(order.id).toMatch(/^ord_test_[0-9A-Za-z]{24}$/);
    expect(order).toMatchObject({
      provider: 'native',
      currency: 'USD',
      status: 'open',
      paymentStatus: 'unpaid',
      metadata: {},
    });
    expect(order.amounts).toEqual({ subtotal: TOTAL, tax: 0, discount: 0, tip: 0, total: TOTAL, paid: 0, refunded: 0 });
    expect(order.items.map((i: { name: string; totalPrice: number }) => [i.name, i.totalPrice])).toEqual([
      ['Espresso', 700],
      ['Croissant', 425],
    ]);
    expect(order).not.toHaveProperty('paidAt');
    // The embedded order is the order the orders API shows.
    expect((await test.get(`/v0/orders/${order.id}`)).body.order).toEqual(order);
  });

  it('When requireFromCustomer, a customer and order extras are given, then they are echoed and customerId is the order customer (D16, D22, D39)', async () => {
    const { test, live } = await newMerchant();
    const session = await createSession(test, {
      requireFromCustomer: { phone: true, location: true },
      customer: { email: 'Buyer@Example.com', name: 'Ada' },
      taxes: [{ name: 'VAT', type: 'additive', amount: 100 }],
      discounts: [{ name: 'Ten', type: 'percentage', amount: 10 }],
      metadata: { cart: '42' },
    });
    expect(session.requireFromCustomer).toEqual({ phone: true, shippingAddress: false, location: true });
    expect(session.customerId).toMatch(/^cust_test_/);
    expect(session.order.customer).toEqual({ id: session.customerId, email: 'buyer@example.com', name: 'Ada' });
    // 1125 + 100 − round(112.5) = 1112 (D17)
    expect(session.order.amounts).toEqual({
      subtotal: 1125,
      tax: 100,
      discount: 113,
      tip: 0,
      total: 1112,
      paid: 0,
      refunded: 0,
    });
    expect(session.order.metadata).toEqual({ cart: '42' });
    const liveSession = await createSession(live, { successUrl: undefined });
    expect(liveSession.id).toMatch(/^cs_live_/);
    expect(liveSession.order.id).toMatch(/^ord_live_/);
    expect(liveSession.successUrl).toBeNull();
  });

  it('When URLs carry {SESSION_ID} and {ORDER_ID}, then every occurrence is replaced and unknown braces stay as written (D22)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test, {
      successUrl: 'https://merchant.example/{SESSION_ID}/done?s={SESSION_ID}&o={ORDER_ID}&x={OTHER}&y={session_id}',
      callbackUrl: 'https://hooks.example/{ORDER_ID}/{ORDER_ID}?also={SESSION_ID}&{}',
    });
    const [s, o] = [session.id, session.order.id];
    expect(session.successUrl).toBe(`https://merchant.example/${s}/done?s=${s}&o=${o}&x={OTHER}&y={session_id}`);
    expect(session.callbackUrl).toBe(`https://hooks.example/${o}/${o}?also=${s}&{}`);
    const plain = await createSession(test, {
      successUrl: 'https://merchant.example/thanks',
      callbackUrl: 'http://hooks.example/plain',
    });
    expect(plain).toMatchObject({
      successUrl: 'https://merchant.example/thanks',
      callbackUrl: 'http://hooks.example/plain',
    });
  });

  it("When the organization has a default callback URL, then it is used with placeholders when the request has none, and a request's own URL overrides it (D22)", async () => {
    const { organizationId, test, live } = await newMerchant();
    await stack.admin.call('PATCH', `/organizations/${organizationId}/checkout-settings`, {
      mode: 'test',
      defaultCallbackUrl: 'https://merchant.example/hooks/{SESSION_ID}',
    });
    const byDefault = await createSession(test);
    expect(byDefault.callbackUrl).toBe(`https://merchant.example/hooks/${byDefault.id}`);
    const overridden = await createSession(test, { callbackUrl: 'https://other.example/cb?o={ORDER_ID}' });
    expect(overridden.callbackUrl).toBe(`https://other.example/cb?o=${overridden.order.id}`);
    // The setting is per mode: live has none.
    expect((await createSession(live)).callbackUrl).toBeNull();
  });

  it.each([
    ['14', 14],
    ['1441', 1441],
    ['1.5', 1.5],
    ['a string', '60'],
    ['null', null],
  ])(
    'When expiresInMinutes is %s, then 400 SESSION_CREATION_FAILED with details (D16)',
    async (_, expiresInMinutes) => {
      const { test } = await newMerchant();
      const response = await test.post('/v0/checkout/sessions', buildSessionInput({ expiresInMinutes }));
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('SESSION_CREATION_FAILED');
      expect(detailPaths(response.body)).toContain('expiresInMinutes');
      expect((await test.get('/v0/orders')).body.pagination.total).toBe(0);
    },
  );

  it.each([
    [
      'requireFromCustomer with a non-boolean flag',
      { requireFromCustomer: { phone: 'yes' } },
      'requireFromCustomer.phone',
    ],
    ['requireFromCustomer with an unknown input', { requireFromCustomer: { email: true } }, 'requireFromCustomer'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    ['no items', { items: [] }, 'items'],
  ])('When the body has %s, then 400 SESSION_CREATION_FAILED with details (D7, D16)', async (_, overrides, path) => {
    const { test } = await newMerchant();
    const response = await test.post('/v0/checkout/sessions', buildSessionInput(overrides));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('SESSION_CREATION_FAILED');
    expect(detailPaths(response.body).join(' ')).toContain(path);
  });

  it('When a locale is given, then the session and its page keep it; one the page does not speak is 400 INVALID_REQUEST (D53)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test, { locale: 'ja' });
    expect(session.locale).toBe('ja');
    expect((await test.get(`/v0/checkout/sessions/${session.id}`)).body.session.locale).toBe('ja');
    const page = await fetch(session.url, { headers: { 'accept-language': 'fr' } });
    expect(await page.text()).toMatch(/<html lang="ja" dir="ltr">/);
    const refused = await test.post('/v0/checkout/sessions', buildSessionInput({ locale: 'ja-JP' }));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INVALID_REQUEST');
    expect(detailPaths(refused.body)).toContain('locale');
    expect((await test.get('/v0/orders')).body.pagination.total).toBe(1);
  });

  it('When expiresInMinutes is 15 or 1440, then the session lives exactly that long (D16)', async () => {
    const { test } = await newMerchant();
    expect(lifetimeMs(await createSession(test, { expiresInMinutes: 15 }))).toBe(15 * MINUTE);
    expect(lifetimeMs(await createSession(test, { expiresInMinutes: 1440 }))).toBe(1440 * MINUTE);
  });

  const longUrl = (length: number) => {
    const head = 'https://merchant.example/';
    return head + 'a'.repeat(length - head.length);
  };
  it.each([
    ['successUrl', 'an ftp: URL', 'ftp://merchant.example/thanks'],
    ['successUrl', 'a relative URL', '/thanks?session={SESSION_ID}'],
    ['successUrl', 'a URL over 2048 characters', longUrl(2049)],
    ['successUrl', 'a javascript: URL', 'javascript:alert(1)'],
    ['callbackUrl', 'an ftp: URL', 'ftp://hooks.example/'],
    ['callbackUrl', 'a relative URL', 'hooks/{SESSION_ID}'],
    ['callbackUrl', 'a URL over 2048 characters', longUrl(2049)],
    ['callbackUrl', 'an empty string', ''],
  ])('When %s is %s, then 400 SESSION_CREATION_FAILED with details (D16)', async (field, _, url) => {
    const { test } = await newMerchant();
    const response = await test.post('/v0/checkout/sessions', buildSessionInput({ [field]: url }));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('SESSION_CREATION_FAILED');
    expect(detailPaths(response.body)).toContain(field);
  });

  it('When a URL is exactly 2048 characters, then it is accepted (D16)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test, { successUrl: longUrl(2048), callbackUrl: longUrl(2048) });
    expect(session.successUrl).toBe(longUrl(2048));
    expect(session.callbackUrl).toBe(longUrl(2048));
  });

  it('When the total is 0 (100% off), then 400 SESSION_CREATION_FAILED, no order is left behind and the externalId is not used up (D24, D36)', async () => {
    const { test } = await newMerchant();
    await createSession(test);
    const before = (await test.get('/v0/orders')).body;
    const externalId = uniqueId('free');
    const response = await test.post(
      '/v0/checkout/sessions',
      buildSessionInput({ externalId, discounts: [{ name: 'All free', type: 'percentage', amount: 100 }] }),
    );
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('SESSION_CREATION_FAILED');
    const free = await test.post(
      '/v0/checkout/sessions',
      buildSessionInput({ items: [{ name: 'Sample', quantity: 1, unitPrice: 0 }] }),
    );
    expect(free.body.code).toBe('SESSION_CREATION_FAILED');
    const after = (await test.get('/v0/orders')).body;
    expect(after.pagination.total).toBe(before.pagination.total);
    expect(after.orders).toEqual(before.orders);
    // An order may have a total of 0 (D36); only sessions may not.
    expect(
      (
        await test.post(
          '/v0/orders',
          buildOrderInput({ discounts: [{ name: 'All free', type: 'percentage', amount: 100 }] }),
        )
      ).status,
    ).toBe(201);
    expect((await createSession(test, { externalId })).order.externalId).toBe(externalId);
  });

  describe('externalId (D37)', () => {
    it('When a session reuses an externalId of a session, then 409 DUPLICATE_EXTERNAL_ID; the other mode may reuse it', async () => {
      const { test, live } = await newMerchant();
      const externalId = uniqueId('ext');
      expect((await createSession(test, { externalId })).order.externalId).toBe(externalId);
      const again = await test.post('/v0/checkout/sessions', buildSessionInput({ externalId }));
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: 'DUPLICATE_EXTERNAL_ID', requestId: again.headers['x-request-id'] });
      expect((await createSession(live, { externalId })).id).toMatch(/^cs_live_/);
    });

    it('When an order and a session share an externalId, in either order, then the second is 409 and only one order exists', async () => {
      const { test } = await newMerchant();
      const fromOrder = uniqueId('ord-first');
      expect((await test.post('/v0/orders', buildOrderInput({ externalId: fromOrder }))).status).toBe(201);
      const blockedSession = await test.post('/v0/checkout/sessions', buildSessionInput({ externalId: fromOrder }));
      expect(blockedSession.status).toBe(409);
      expect(blockedSession.body.code).toBe('DUPLICATE_EXTERNAL_ID');

      const fromSession = uniqueId('cs-first');
      await createSession(test, { externalId: fromSession });
      const blockedOrder = await test.post('/v0/orders', buildOrderInput({ externalId: fromSession }));
      expect(blockedOrder.status).toBe(409);
      expect(blockedOrder.body.code).toBe('DUPLICATE_EXTERNAL_ID');

      const orders = (await test.get('/v0/orders?limit=100')).body.orders as { externalId?: string }[];
      expect(orders.filter((o) => o.externalId === fromOrder)).toHaveLength(1);
      expect(orders.filter((o) => o.externalId === fromSession)).toHaveLength(1);
      expect(orders).toHaveLength(2);
    });

    it('When 20 session creates with one externalId race, then exactly one is 201 and 19 are 409', async () => {
      const { test } = await newMerchant();
      const externalId = uniqueId('race');
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => test.post('/v0/checkout/sessions', buildSessionInput({ externalId }))),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe('DUPLICATE_EXTERNAL_ID');
      const orders = (await test.get('/v0/orders?limit=100')).body.orders as { externalId?: string }[];
      expect(orders.filter((o) => o.externalId === externalId)).toHaveLength(1);
      expect(orders).toHaveLength(1);
    });

    it('When 10 order creates and 10 session creates with one externalId race, then exactly one of the 20 succeeds', async () => {
      const { test } = await newMerchant();
      const externalId = uniqueId('mixed');
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? test.post('/v0/orders', buildOrderInput({ externalId }))
            : test.post('/v0/checkout/sessions', buildSessionInput({ externalId })),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      expect((await test.get('/v0/orders?limit=100')).body.pagination.total).toBe(1);
    });
  });

  describe('locations and payment destinations (D14, D15)', () => {
    const evm = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

    it('When locationId is malformed, unknown, of the other mode or valid, then INVALID_LOCATION_ID, LOCATION_NOT_FOUND, LOCATION_NOT_FOUND, stored', async () => {
      const { organizationId, test } = await newMerchant();
      const malformed = await test.post('/v0/checkout/sessions', buildSessionInput({ locationId: 'store-7' }));
      expect(malformed).toMatchObject({ status: 400, body: { code: 'INVALID_LOCATION_ID' } });
      const unknown = await test.post(
        '/v0/checkout/sessions',
        buildSessionInput({ locationId: 'loc_test_AAAAAAAAAAAAAAAAAAAAAAAA' }),
      );
      expect(unknown).toMatchObject({ status: 400, body: { code: 'LOCATION_NOT_FOUND' } });
      const { location: liveLocation } = await stack.admin.call<{ location: { id: string } }>(
        'POST',
        `/organizations/${organizationId}/locations`,
        { mode: 'live', name: 'Live shop' },
      );
      const otherMode = await test.post(
        '/v0/checkout/sessions',
        buildSessionInput({ locationId: liveLocation.id.replace('_live_', '_test_') }),
      );
      expect(otherMode.body.code).toBe('LOCATION_NOT_FOUND');
      const { location } = await stack.admin.call<{ location: { id: string } }>(
        'POST',
        `/organizations/${organizationId}/locations`,
        { mode: 'test', name: 'Test shop' },
      );
      expect((await createSession(test, { locationId: location.id })).order.locationId).toBe(location.id);
      expect((await test.get('/v0/orders')).body.pagination.total).toBe(1);
    });

    it('When paymentDestination is malformed, unknown, inactive or active and verified, then INVALID_…, …_NOT_FOUND, …_NOT_ACTIVE, stored', async () => {
      const { organizationId, test } = await newMerchant();
      expect(
        (await test.post('/v0/checkout/sessions', buildSessionInput({ paymentDestination: 'my wallet' }))).body,
      ).toMatchObject({ code: 'INVALID_PAYMENT_DESTINATION' });
      const unknown = await test.post('/v0/checkout/sessions', buildSessionInput({ paymentDestination: evm(1) }));
      expect(unknown).toMatchObject({ status: 400, body: { code: 'PAYMENT_DESTINATION_NOT_FOUND' } });
      const create = (address: string, status: string, verified: boolean) =>
        stack.admin.call<{ paymentDestination: { id: string } }>(
          'POST',
          `/organizations/${organizationId}/payment-destinations`,
          { mode: 'test', address, status, verified },
        );
      const inactive = (await create(evm(2), 'inactive', true)).paymentDestination;
      await create(evm(3), 'active', false);
      const good = (await create(evm(4), 'active', true)).paymentDestination;
      expect(
        (await test.post('/v0/checkout/sessions', buildSessionInput({ paymentDestination: inactive.id }))).body.code,
      ).toBe('PAYMENT_DESTINATION_NOT_ACTIVE');
      expect(
        (await test.post('/v0/checkout/sessions', buildSessionInput({ paymentDestination: evm(3) }))).body.code,
      ).toBe('PAYMENT_DESTINATION_NOT_ACTIVE');
      expect((await createSession(test, { paymentDestination: good.id })).order.paymentDestination).toBe(good.id);
      expect((await createSession(test, { paymentDestination: evm(4) })).order.paymentDestination).toBe(evm(4));
      expect((await test.get('/v0/orders')).body.pagination.total).toBe(2);
    });
  });
});

describe('GET /v0/checkout/sessions/:sessionId', () => {
  it('When the session exists, then 200 {session} equal to the one create returned', async () => {
    const { test } = await newMerchant();
    const created = await createSession(test, { callbackUrl: 'https://hooks.example/{SESSION_ID}' });
    const response = await test.get(`/v0/checkout/sessions/${created.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['session']);
    expect(response.body.session).toEqual(created);
  });

  it('When the id is malformed, then 400 INVALID_SESSION_ID (D4)', async () => {
    const { test } = await newMerchant();
    for (const id of [
      '123',
      'cs_prod_abc',
      'ord_test_abc',
      'cs_test_',
      `cs_test_${'a'.repeat(65)}`,
      'cs_test_abc-def',
    ]) {
      const response = await test.get(`/v0/checkout/sessions/${id}`);
      expect(response.status, id).toBe(400);
      expect(response.body.code, id).toBe('INVALID_SESSION_ID');
    }
  });

  it('When the session belongs to the other mode or another organization, or does not exist, then 404 SESSION_NOT_FOUND (D4)', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const session = await createSession(a.test);
    for (const [api, id] of [
      [a.live, session.id],
      [a.live, session.id.replace('_test_', '_live_')],
      [b.test, session.id],
      [a.test, 'cs_test_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ] as const) {
      const response = await api.get(`/v0/checkout/sessions/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('SESSION_NOT_FOUND');
      const patch = await api.patch(`/v0/checkout/sessions/${id}`, { sessionData: { x: 1 } });
      expect(patch.status).toBe(404);
      expect(patch.body.code).toBe('SESSION_NOT_FOUND');
    }
    expect((await getSession(a.test, session.id)).sessionData).toEqual({});
  });

  it('When its order is edited with PATCH /v0/orders/:id, then the session shows the order as it is now (D25)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const edited = await test.patch(`/v0/orders/${session.order.id}`, {
      items: [{ name: 'Tea', quantity: 3, unitPrice: 300 }],
      taxes: [{ type: 'additive', amount: 50 }],
    });
    expect(edited.status).toBe(200);
    // The session presents its own copy of the order (a read never calls orders); orders' order.updated event
    // brings the edit, so the session shows it as soon as the event is consumed.
    const read = await eventually(
      async () => {
        const current = await getSession(test, session.id);
        return current.order.updatedAt === edited.body.order.updatedAt ? current : undefined;
      },
      { ...DEADLINE, description: 'the edit reaches the session' },
    );
    expect(read.order).toEqual(edited.body.order);
    expect(read.order.items.map((i: { name: string }) => i.name)).toEqual(['Tea']);
    expect(read.order.amounts).toMatchObject({ subtotal: 900, tax: 50, total: 950, paid: 0 });
    expect(read.status).toBe('pending');
    // Payment takes the order as it is now.
    const paid = await pay(test, session.id);
    expect(paid.body.session.order.amounts).toMatchObject({ total: 950, paid: 950 });
  });
});

describe('PATCH /v0/checkout/sessions/:sessionId', () => {
  it('When extendExpiry is N, then expiresAt moves by exactly N minutes and updatedAt moves (D23)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const response = await test.patch(`/v0/checkout/sessions/${session.id}`, { extendExpiry: 30 });
    expect(response.status).toBe(200);
    expect(Date.parse(response.body.session.expiresAt) - Date.parse(session.expiresAt)).toBe(30 * MINUTE);
    expect(response.body.session.updatedAt > session.updatedAt).toBe(true);
    expect(response.body.session).toMatchObject({ status: 'pending', active: true, createdAt: session.createdAt });
    expect((await getSession(test, session.id)).expiresAt).toBe(response.body.session.expiresAt);
  });

  it.each([
    ['0', 0],
    ['1441', 1441],
    ['1.5', 1.5],
    ['negative', -5],
    ['a string', '5'],
  ])(
    'When extendExpiry is %s, then 400 SESSION_UPDATE_FAILED with details and nothing changes (D23)',
    async (_, extendExpiry) => {
      const { test } = await newMerchant();
      const session = await createSession(test);
      const response = await test.patch(`/v0/checkout/sessions/${session.id}`, { extendExpiry });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('SESSION_UPDATE_FAILED');
      expect(detailPaths(response.body)).toContain('extendExpiry');
      expect(await getSession(test, session.id)).toEqual(session);
    },
  );

  it.each([
    ['an unknown field', { colour: 'red' }],
    ['a null sessionData', { sessionData: null }],
    ['an array sessionData', { sessionData: [1, 2] }],
    ['sessionData over 8 KiB', { sessionData: { big: 'x'.repeat(8 * 1024) } }],
  ])('When the PATCH body has %s, then 400 SESSION_UPDATE_FAILED with details (D7, D23)', async (_, body) => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const response = await test.patch(`/v0/checkout/sessions/${session.id}`, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('SESSION_UPDATE_FAILED');
    expect(response.body.details.length).toBeGreaterThan(0);
  });

  it('When extensions would make the lifetime exceed 7 days, then 400 SESSION_UPDATE_FAILED; exactly 7 days is allowed (D23)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test, { expiresInMinutes: 1440 });
    for (let day = 2; day <= 7; day += 1) {
      const response = await test.patch(`/v0/checkout/sessions/${session.id}`, { extendExpiry: 1440 });
      expect(response.status, `day ${day}`).toBe(200);
      expect(lifetimeMs(response.body.session)).toBe(day * 1440 * MINUTE);
    }
    const tooLong = await test.patch(`/v0/checkout/sessions/${session.id}`, { extendExpiry: 1 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('SESSION_UPDATE_FAILED');
    expect(lifetimeMs(await getSession(test, session.id))).toBe(7 * 1440 * MINUTE);
  });

  it('When sessionData is sent twice, then it is merged shallowly, keys with "." and "$" survive, and an empty PATCH changes nothing (D23, D36)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const first = await test.patch(`/v0/checkout/sessions/${session.id}`, {
      sessionData: { 'a.b': 1, $c: { 'd.e': [1, 2], $f: null }, keep: 'x', nested: { x: 1, y: 2 } },
    });
    expect(first.status).toBe(200);
    const second = await test.patch(`/v0/checkout/sessions/${session.id}`, {
      sessionData: { keep: 'y', nested: { x: 3 }, more: true },
    });
    const merged = { 'a.b': 1, $c: { 'd.e': [1, 2], $f: null }, keep: 'y', nested: { x: 3 }, more: true };
    expect(second.body.session.sessionData).toEqual(merged);
    expect(second.body.session.expiresAt).toBe(session.expiresAt);
    expect((await getSession(test, session.id)).sessionData).toEqual(merged);
    const empty = await test.patch(`/v0/checkout/sessions/${session.id}`, {});
    expect(empty.status).toBe(200);
    expect(empty.body.session.updatedAt).toBe(second.body.session.updatedAt);
    const tooMany = await test.patch(`/v0/checkout/sessions/${session.id}`, {
      sessionData: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe('SESSION_UPDATE_FAILED');
  });

  it('When the session is completed, then sessionData still merges but extendExpiry is refused (D23)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    await test.patch(`/v0/checkout/sessions/${session.id}`, { sessionData: { before: 1 } });
    expect((await pay(test, session.id)).status).toBe(200);
    const data = await test.patch(`/v0/checkout/sessions/${session.id}`, { sessionData: { after: 2 } });
    expect(data.status).toBe(200);
    expect(data.body.session).toMatchObject({ status: 'completed', sessionData: { before: 1, after: 2 } });
    const extend = await test.patch(`/v0/checkout/sessions/${session.id}`, { extendExpiry: 5 });
    expect(extend.status).toBe(400);
    expect(extend.body.code).toBe('SESSION_UPDATE_FAILED');
  });
});

describe('POST /v0/orders/:orderId/cancel of a session’s order (D25)', () => {
  it('When the order is cancelled, then the session is cancelled and inactive; it can be neither paid, extended nor expired', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const cancel = await test.post(`/v0/orders/${session.order.id}/cancel`);
    expect(cancel.status).toBe(200);
    // Orders' order.cancelled event carries the cancel to the session (reads never call orders).
    const read = await eventually(
      async () => {
        const current = await getSession(test, session.id);
        return current.status === 'cancelled' ? current : undefined;
      },
      { ...DEADLINE, description: 'the cancel reaches the session' },
    );
    expect(read).toMatchObject({
      status: 'cancelled',
      active: false,
      order: { status: 'cancelled', paymentStatus: 'unpaid' },
    });
    const paid = await pay(test, session.id);
    expect(paid).toMatchObject({ status: 400, body: { code: 'SESSION_NOT_PAYABLE' } });
    expect((await test.patch(`/v0/checkout/sessions/${session.id}`, { extendExpiry: 5 })).body.code).toBe(
      'SESSION_UPDATE_FAILED',
    );
    expect((await expire(test, session.id)).body.code).toBe('SESSION_UPDATE_FAILED');
    expect(await getSession(test, session.id)).toMatchObject({
      status: 'cancelled',
      active: false,
      order: { amounts: { paid: 0 } },
    });
  });
});

describe('POST /v0/test_helpers/checkout/sessions/:sessionId/pay (D29)', () => {
  it('When paid with the defaults (card, amount due), then 200 completed and the order completed, paid, with paidAt and amounts.paid = total', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const sentAt = Date.now();
    const response = await pay(test, session.id);
    expect(response.status).toBe(200);
    const paid = response.body.session;
    expect(paid).toMatchObject({ id: session.id, status: 'completed', active: false, failedAttempts: 0 });
    expect(paid.order).toMatchObject({ id: session.order.id, status: 'completed', paymentStatus: 'paid' });
    expect(paid.order.amounts).toEqual({ ...session.order.amounts, paid: TOTAL });
    expect(paid.order.paidAt).toMatch(ISO_MS);
    expect(Date.parse(paid.order.paidAt)).toBeGreaterThanOrEqual(sentAt);
    expect(await getSession(test, session.id)).toEqual(paid);
    expect((await test.get(`/v0/orders/${session.order.id}`)).body.order).toEqual(paid.order);
  });

  it('When the outcome is declined, then 200 with failedAttempts + 1, still pending and unpaid (D27)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const first = await pay(test, session.id, { outcome: 'declined' });
    expect(first.status).toBe(200);
    expect(first.body.session).toMatchObject({
      status: 'pending',
      active: true,
      failedAttempts: 1,
      order: { status: 'open', paymentStatus: 'unpaid', amounts: { paid: 0 } },
    });
    const second = await pay(test, session.id, { outcome: 'declined', method: 'card' });
    expect(second.body.session.failedAttempts).toBe(2);
    expect((await getSession(test, session.id)).failedAttempts).toBe(2);
  });

  it('When a stablecoin pays part, then partially_paid and still pending; paying the rest completes it (D28)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const part = await pay(test, session.id, { method: 'stablecoin', amount: 400 });
    expect(part.status).toBe(200);
    expect(part.body.session).toMatchObject({
      status: 'pending',
      active: true,
      order: { status: 'open', paymentStatus: 'partially_paid', amounts: { paid: 400, total: TOTAL } },
    });
    expect(part.body.session.order).not.toHaveProperty('paidAt');
    // A partially paid order is no longer editable or cancellable.
    expect((await test.post(`/v0/orders/${session.order.id}/cancel`)).status).toBe(400);
    const rest = await pay(test, session.id, { method: 'stablecoin' });
    expect(rest.status).toBe(200);
    expect(rest.body.session).toMatchObject({
      status: 'completed',
      active: false,
      order: { status: 'completed', paymentStatus: 'paid', amounts: { paid: TOTAL } },
    });
    const again = await pay(test, session.id);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('SESSION_NOT_PAYABLE');
  });

  it('When the body is invalid, then 400 INVALID_REQUEST and nothing is applied', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    for (const body of [{ amount: 0 }, { method: 'cash' }, { outcome: 'maybe' }, { amount: 1.5 }, { colour: 'red' }]) {
      const response = await pay(test, session.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST');
    }
    expect(await getSession(test, session.id)).toEqual(session);
  });

  it('When the key is live, then both helpers are 404 NOT_FOUND, for live and test ids alike (D29)', async () => {
    const { test, live } = await newMerchant();
    const liveSession = await createSession(live);
    const testSession = await createSession(test);
    for (const id of [liveSession.id, testSession.id]) {
      for (const helper of [pay, expire]) {
        const response = await helper(live, id);
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('NOT_FOUND');
      }
    }
    expect((await getSession(live, liveSession.id)).status).toBe('pending');
  });

  it('When the session is unknown, of another organization or malformed, then 404 SESSION_NOT_FOUND or 400 INVALID_SESSION_ID', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const session = await createSession(a.test);
    for (const helper of [pay, expire]) {
      for (const [api, id] of [
        [b.test, 'cs_test_AAAAAAAAAAAAAAAAAAAAAAAA'],
        [b.test, session.id],
        [a.test, session.id.replace('_test_', '_live_')],
      ] as const) {
        const response = await helper(api, id);
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('SESSION_NOT_FOUND');
      }
      expect((await helper(a.test, 'nope')).body.code).toBe('INVALID_SESSION_ID');
    }
    expect((await getSession(a.test, session.id)).status).toBe('pending');
  });
});

describe('POST /v0/test_helpers/checkout/sessions/:sessionId/expire (D21, D29)', () => {
  it('When a 15-minute session is expired by the helper, then it is expired now: status expired, inactive, expiresAt between request and response, and a GET right after agrees', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test, { expiresInMinutes: 15 });
    expect(lifetimeMs(session)).toBe(15 * MINUTE);
    expect((await getSession(test, session.id)).status).toBe('pending');
    const sentAt = Date.now();
    const response = await expire(test, session.id);
    const receivedAt = Date.now();
    expect(response.status).toBe(200);
    const expired = response.body.session;
    expect(expired).toMatchObject({
      status: 'expired',
      active: false,
      order: { status: 'open', paymentStatus: 'unpaid' },
    });
    expect(Date.parse(expired.expiresAt)).toBeGreaterThanOrEqual(sentAt);
    expect(Date.parse(expired.expiresAt)).toBeLessThanOrEqual(receivedAt);
    const read = await getSession(test, session.id);
    expect(read).toMatchObject({ status: 'expired', active: false, expiresAt: expired.expiresAt });
    expect(Date.parse(read.expiresAt)).toBeLessThanOrEqual(Date.now());
  });

  it('When an expired session is expired again, paid or extended, then 400 SESSION_UPDATE_FAILED / SESSION_NOT_PAYABLE / SESSION_UPDATE_FAILED', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    expect((await expire(test, session.id)).status).toBe(200);
    const again = await expire(test, session.id);
    expect(again).toMatchObject({ status: 400, body: { code: 'SESSION_UPDATE_FAILED' } });
    const paid = await pay(test, session.id);
    expect(paid).toMatchObject({ status: 400, body: { code: 'SESSION_NOT_PAYABLE' } });
    expect((await test.patch(`/v0/checkout/sessions/${session.id}`, { extendExpiry: 30 })).body.code).toBe(
      'SESSION_UPDATE_FAILED',
    );
    expect((await getSession(test, session.id)).order).toMatchObject({
      status: 'open',
      paymentStatus: 'unpaid',
      amounts: { paid: 0 },
    });
  });

  it('When a completed session is expired, then 400 SESSION_UPDATE_FAILED and it stays completed', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    await pay(test, session.id);
    expect((await expire(test, session.id)).body.code).toBe('SESSION_UPDATE_FAILED');
    expect((await getSession(test, session.id)).status).toBe('completed');
  });
});

describe('checkout.session events on Kafka (D28, D30)', () => {
  it('When a test-helper payment answers 200, then checkout.session.completed is already on the topic, keyed by session id, with body {id, event, createdAt, session}', async () => {
    const { test } = await newMerchant();
    const externalId = uniqueId('evt');
    const session = await createSession(test, {
      externalId,
      callbackUrl: 'https://hooks.example/{SESSION_ID}',
      customer: { email: 'events@example.com' },
    });
    const response = await pay(test, session.id);
    expect(response.status).toBe(200);
    // Taken the moment the answer is in: the event must already be below these marks.
    const marks = await topic.highWaterMarks();
    const [message] = await eventually(
      () => (topic.eventsOf(session.id).length > 0 ? topic.eventsOf(session.id) : undefined),
      { ...DEADLINE, description: 'the completed event' },
    );
    expect(message!.offset, 'the event was on the topic before the pay request answered').toBeLessThan(
      marks.get(message!.partition) ?? 0,
    );
    expect(message!.key).toBe(session.id);
    const envelope = SessionEventV1.parse(message!.value);
    expect(envelope).toMatchObject({
      type: 'checkout.session.completed',
      sessionId: session.id,
      mode: 'test',
      callbackUrl: `https://hooks.example/${session.id}`,
    });
    expect(message!.eventIdHeader).toBe(envelope.eventId);
    const body = message!.value.body;
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'event', 'id', 'session']);
    expect(body.id).toMatch(/^evt_test_[0-9A-Za-z]{24}$/);
    expect(body.event).toBe('checkout.session.completed');
    expect(body.createdAt).toMatch(ISO_MS);
    expect(body.session).toMatchObject({ id: session.id, status: 'completed', active: false });
    expect(body.session.order).toMatchObject({
      status: 'completed',
      paymentStatus: 'paid',
      externalId,
      amounts: { paid: TOTAL },
      customer: { email: 'events@example.com' },
    });
    expect(body.session.order.paidAt).toMatch(ISO_MS);
    // The spec: GET is identical to the session embedded in the completed event.
    expect(await getSession(test, session.id)).toEqual(body.session);
    await topic.barrier();
    expect(topic.eventsOf(session.id)).toHaveLength(1);
  });

  it('When a session is expired, then exactly one checkout.session.expired event with the expired session and its open order', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const expired = (await expire(test, session.id)).body.session;
    await eventually(() => topic.eventsOf(session.id).length > 0, { ...DEADLINE, description: 'the expired event' });
    expect((await expire(test, session.id)).status).toBe(400);
    await topic.barrier();
    const events = topic.eventsOf(session.id);
    expect(events).toHaveLength(1);
    const body = events[0]!.value.body;
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'event', 'id', 'session']);
    expect(body.event).toBe('checkout.session.expired');
    expect(body.session).toEqual(expired);
    expect(body.session.order).toMatchObject({ status: 'open', paymentStatus: 'unpaid' });
  });

  it('When sessions are cancelled, declined or partly paid, then no event is fired for them (D25, D28, D30)', async () => {
    const { test } = await newMerchant();
    const cancelled = await createSession(test);
    expect((await test.post(`/v0/orders/${cancelled.order.id}/cancel`)).status).toBe(200);
    // The order.cancelled event settles the stored status (no event is owed for a cancel, D25).
    await eventually(
      async () =>
        (await test.patch(`/v0/checkout/sessions/${cancelled.id}`, { sessionData: { settled: true } })).body.session
          .status === 'cancelled',
      { ...DEADLINE, description: 'the cancel reaches the session' },
    );
    const declined = await createSession(test);
    await pay(test, declined.id, { outcome: 'declined' });
    const partial = await createSession(test);
    await pay(test, partial.id, { method: 'stablecoin', amount: 1 });
    // A session that does fire, published after the others' changes: once it is seen and the topic is drained,
    // any event of the three would have been seen too.
    const marker = await createSession(test);
    await pay(test, marker.id);
    await eventually(() => topic.eventsOf(marker.id).length > 0, { ...DEADLINE, description: 'the marker event' });
    await topic.barrier();
    for (const s of [cancelled, declined, partial]) expect(topic.eventsOf(s.id), s.id).toHaveLength(0);
  });
});

describe('pay and cancel racing through the gateway (D21, D25)', () => {
  it('When a test-helper payment and an order cancel race 20 times, then each run ends either completed/completed or cancelled/cancelled with pay refused', async () => {
    const { test } = await newMerchant();
    const outcomes = { completed: 0, cancelled: 0 };
    for (let run = 0; run < 20; run += 1) {
      const session = await createSession(test);
      // The cancel path (gateway → orders) is shorter than the payment's (gateway → sessions → orders), so the
      // cancel is sent with a head start for the payment that grows over the runs: both outcomes get exercised.
      const [paid, cancel] = await Promise.all([
        pay(test, session.id),
        delayed(run * 4, () => test.post(`/v0/orders/${session.order.id}/cancel`)),
      ]);
      const read = await getSession(test, session.id);
      const order = (await test.get(`/v0/orders/${session.order.id}`)).body.order;
      const context = `run ${run}: pay ${paid.status} ${JSON.stringify(paid.body?.code ?? paid.body?.session?.status)}, cancel ${cancel.status} ${cancel.body?.code ?? ''}, session ${read.status}, order ${order.status}/${order.paymentStatus}`;
      if (read.status === 'completed') {
        outcomes.completed += 1;
        expect(order, context).toMatchObject({ status: 'completed', paymentStatus: 'paid', amounts: { paid: TOTAL } });
        expect(paid.status, context).toBe(200);
        expect(cancel.status, context).toBe(400);
        expect(cancel.body.code, context).toBe('ORDER_CANCEL_FAILED');
      } else {
        outcomes.cancelled += 1;
        expect(read.status, context).toBe('cancelled');
        expect(read.active, context).toBe(false);
        expect(order, context).toMatchObject({ status: 'cancelled', paymentStatus: 'unpaid', amounts: { paid: 0 } });
        expect(cancel.status, context).toBe(200);
        expect(paid.status, context).toBe(400);
        expect(paid.body.code, context).toBe('SESSION_NOT_PAYABLE');
      }
    }
    expect(outcomes.completed + outcomes.cancelled).toBe(20);
    console.log(`pay/cancel race outcomes: ${JSON.stringify(outcomes)}`);
  });

  it('When two full payments race 10 times, then exactly one is applied: one 200 completed, one 400 SESSION_NOT_PAYABLE, paid = total, one event (D27, D28)', async () => {
    const { test } = await newMerchant();
    const sessions: { id: string }[] = [];
    for (let run = 0; run < 10; run += 1) {
      const session = await createSession(test);
      sessions.push(session);
      const responses = await Promise.all([pay(test, session.id), pay(test, session.id, { method: 'stablecoin' })]);
      const context = `run ${run}: ${responses.map((r) => `${r.status} ${r.body?.code ?? r.body?.session?.status}`).join(', ')}`;
      expect(responses.map((r) => r.status).sort(), context).toEqual([200, 400]);
      expect(responses.find((r) => r.status === 400)!.body.code, context).toBe('SESSION_NOT_PAYABLE');
      expect((await getSession(test, session.id)).order, context).toMatchObject({
        status: 'completed',
        paymentStatus: 'paid',
        amounts: { paid: TOTAL },
      });
    }
    await eventually(() => sessions.every((s) => topic.eventsOf(s.id).length > 0), {
      ...DEADLINE,
      description: 'one completed event per session',
    });
    await topic.barrier();
    for (const s of sessions) expect(topic.eventsOf(s.id), s.id).toHaveLength(1);
  });

  it('When a payment and the expire helper race 10 times, then each run ends either completed (expire refused) or expired (payment refused, unpaid) (D21)', async () => {
    const { test } = await newMerchant();
    const outcomes = { completed: 0, expired: 0 };
    for (let run = 0; run < 10; run += 1) {
      const session = await createSession(test);
      const [paid, expiredNow] = await Promise.all([pay(test, session.id), expire(test, session.id)]);
      const read = await getSession(test, session.id);
      const context = `run ${run}: pay ${paid.status} ${paid.body?.code ?? ''}, expire ${expiredNow.status} ${expiredNow.body?.code ?? ''}, session ${read.status}`;
      if (read.status === 'completed') {
        outcomes.completed += 1;
        expect(paid.status, context).toBe(200);
        expect(expiredNow.body.code, context).toBe('SESSION_UPDATE_FAILED');
        expect(read.order.amounts.paid, context).toBe(TOTAL);
      } else {
        outcomes.expired += 1;
        expect(read.status, context).toBe('expired');
        expect(expiredNow.status, context).toBe(200);
        expect(paid.body.code, context).toBe('SESSION_NOT_PAYABLE');
        expect(read.order, context).toMatchObject({ status: 'open', paymentStatus: 'unpaid', amounts: { paid: 0 } });
      }
    }
    console.log(`pay/expire race outcomes: ${JSON.stringify(outcomes)}`);
  });
});

describe('GET {checkoutBaseUrl}/:sessionId — the hosted page through the gateway (D26, D41)', () => {
  async function page(url: string) {
    const response = await request(url);
    return { status: response.statusCode, headers: response.headers, html: await response.body.text() };
  }

  it("When the session's url is opened, then 200 HTML with a CSP forbidding framing and no referrer", async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    const response = await page(session.url);
    expect(response.status).toBe(200);
    expect(String(response.headers['content-type'])).toMatch(/^text\/html/);
    expect(String(response.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.html).toContain('<html');
    expect(response.html).toContain('Card number'); // the pending page offers the payment form (D26, D41)
  });

  it('When the session is expired, then the page says so and has no payment form (D26)', async () => {
    const { test } = await newMerchant();
    const session = await createSession(test);
    await expire(test, session.id);
    const response = await page(session.url);
    expect(response.status).toBe(200);
    expect(response.html).toMatch(/expired/i);
    expect(response.html).not.toMatch(/Card number/);
  });

  it('When the id is unknown or malformed, then a 404 HTML page with the same security headers', async () => {
    for (const id of ['cs_test_AAAAAAAAAAAAAAAAAAAAAAAA', 'not-a-session']) {
      const response = await page(`${stack.checkoutBaseUrl}/${id}`);
      expect(response.status, id).toBe(404);
      expect(String(response.headers['content-type'])).toMatch(/^text\/html/);
      expect(String(response.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    }
  });
});
