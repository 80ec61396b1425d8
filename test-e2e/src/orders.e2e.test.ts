import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, internalCallers, newSecret } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput, uniqueId } from './support/factories';

// The orders API end to end through the gateway, on real Kafka and a real MongoDB-compatible server.

let stack: InProcessStack;
let test: Api; // sk_test key of organization A
let live: Api; // sk_live key of organization A
let otherOrg: Api; // sk_test key of organization B
let organizationId: string;

beforeAll(async () => {
  stack = await startStack(
    {
      extraEnv: {
        gateway: {
          AUTH_CACHE_MS: '0',
          RATE_LIMIT_PER_WINDOW: '1000000',
          RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
          CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
        },
      },
    },
    ['orders', 'gateway'],
  );
  const a = await stack.admin.createOrganizationWithKeys('Blue Bottle Test Org');
  const b = await stack.admin.createOrganizationWithKeys('Other Org');
  organizationId = a.organizationId;
  test = new Api(stack.gatewayUrl, a.testKey);
  live = new Api(stack.gatewayUrl, a.liveKey);
  otherOrg = new Api(stack.gatewayUrl, b.testKey);
});

afterAll(async () => {
  await stack?.stop();
});

async function createOrder(api: Api, overrides: Record<string, unknown> = {}) {
  const response = await api.post('/v0/orders', buildOrderInput(overrides));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.order;
}

describe('POST /v0/orders', () => {
  it('When a valid order is created, then it is open, unpaid, native USD with ids and D17 amounts', async () => {
    const response = await test.post('/v0/orders', {
      items: [
        { name: 'Espresso', quantity: 2, unitPrice: 350 },
        { name: 'Croissant', quantity: 1, unitPrice: 425 },
      ],
      taxes: [{ type: 'additive', amount: 100 }],
      discounts: [
        { name: 'Ten percent', type: 'percentage', amount: 10 },
        { name: 'Fifty off', type: 'fixed', amount: 50 },
      ],
    });
    expect(response.status).toBe(201);
    expect(response.headers['x-request-id']).toBeTruthy();
    const { order } = response.body;
    expect(order.id).toMatch(/^ord_test_[0-9A-Za-z]{24}$/);
    expect(order).toMatchObject({
      provider: 'native',
      currency: 'USD',
      status: 'open',
      paymentStatus: 'unpaid',
      metadata: {},
    });
    // subtotal 1125; 10% of 1125 = 112.5 → 113 (half up, D17); discount 163; total 1125 + 100 − 163
    expect(order.amounts).toEqual({
      subtotal: 1125,
      tax: 100,
      discount: 163,
      tip: 0,
      total: 1062,
      paid: 0,
      refunded: 0,
    });
    expect(order.items[0]).toMatchObject({
      name: 'Espresso',
      quantity: 2,
      unitPrice: 350,
      totalPrice: 700,
      itemType: 'product',
    });
    expect(order.items[0].id).toMatch(/^item_[0-9A-Za-z]{24}$/);
    expect(order.taxes[0]).toMatchObject({ name: 'Tax', type: 'additive', amount: 100, rate: null, scope: 'order' });
    expect(order.taxes[0].id).toMatch(/^tax_/);
    expect(order.discounts[1]).toMatchObject({ name: 'Fifty off', type: 'fixed', amount: 50, scope: 'order' });
    expect(order.discounts[0].id).toMatch(/^disc_/);
    expect(order.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(order.updatedAt).toBe(order.createdAt);
    for (const absent of ['paidAt', 'customer', 'locationId', 'shippingAddress', 'paymentDestination', 'externalId'])
      expect(order).not.toHaveProperty(absent);
  });

  it("When the spec's example discount applies, then 10% of 3097 is 310", async () => {
    const order = await createOrder(test, {
      items: [{ name: 'Tea set', quantity: 1, unitPrice: 3097 }],
      discounts: [{ name: 'Promo', type: 'percentage', rate: 10 }],
    });
    expect(order.amounts).toMatchObject({ subtotal: 3097, discount: 310, total: 2787 });
    expect(order.discounts[0]).toEqual({
      id: expect.any(String),
      name: 'Promo',
      type: 'percentage',
      amount: 10,
      scope: 'order',
    }); // D9: rate in, amount out
  });

  it('When externalId is given, then it is returned and a second create with it is 409 DUPLICATE_EXTERNAL_ID', async () => {
    const externalId = uniqueId('ext');
    const order = await createOrder(test, { externalId });
    expect(order.externalId).toBe(externalId);
    const again = await test.post('/v0/orders', buildOrderInput({ externalId }));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'DUPLICATE_EXTERNAL_ID', requestId: again.headers['x-request-id'] });
  });

  it('When the same externalId is used in live mode and by another organization, then each is created once (spec rule 3)', async () => {
    const externalId = uniqueId('ext');
    await createOrder(test, { externalId });
    expect((await createOrder(live, { externalId })).id).toMatch(/^ord_live_/);
    await createOrder(otherOrg, { externalId });
  });

  it('When 20 creates with one externalId race, then exactly one is 201 and 19 are 409 (D37)', async () => {
    const externalId = uniqueId('race');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => test.post('/v0/orders', buildOrderInput({ externalId }))),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const list = await test.get('/v0/orders?limit=100');
    expect(list.body.orders.filter((o: { externalId?: string }) => o.externalId === externalId)).toHaveLength(1);
  });

  it('When a customer is given, then it is found or created by lowercased email (D11)', async () => {
    const email = `${uniqueId('buyer')}@Example.com`;
    const first = await createOrder(test, { customer: { email, name: 'Ada' } });
    const second = await createOrder(test, { customer: { email: email.toUpperCase() } });
    expect(first.customer).toEqual({
      id: expect.stringMatching(/^cust_test_/),
      email: email.toLowerCase(),
      name: 'Ada',
    });
    expect(second.customer.id).toBe(first.customer.id);
    const liveOrder = await createOrder(live, { customer: { email } });
    expect(liveOrder.customer.id).toMatch(/^cust_live_/);
  });

  it('When metadata keys contain "." and "$", then they survive storage (D13)', async () => {
    const metadata = { 'a.b': 'dotted', $dollar: 'sign', 'nested.$mix': 'both', plain: 'x' };
    const order = await createOrder(test, { metadata });
    expect(order.metadata).toEqual(metadata);
    expect((await test.get(`/v0/orders/${order.id}`)).body.order.metadata).toEqual(metadata);
  });

  it.each([
    ['an unknown field', { ...buildOrderInput(), colour: 'red' }, 'colour'],
    ['a null value', { ...buildOrderInput(), metadata: null }, 'metadata'],
    ['no items', { items: [] }, 'items'],
    ['a zero quantity', { items: [{ name: 'X', quantity: 0, unitPrice: 1 }] }, 'items.0.quantity'],
    ['a fractional price', { items: [{ name: 'X', quantity: 1, unitPrice: 1.5 }] }, 'items.0.unitPrice'],
    ['an empty externalId', { ...buildOrderInput(), externalId: '' }, 'externalId'],
    ['a 256-character externalId', { ...buildOrderInput(), externalId: 'x'.repeat(256) }, 'externalId'],
    [
      'both rate and amount',
      { ...buildOrderInput(), discounts: [{ name: 'd', type: 'percentage', rate: 5, amount: 5 }] },
      'discounts.0',
    ],
    [
      'a discount above the subtotal',
      { items: [{ name: 'X', quantity: 1, unitPrice: 100 }], discounts: [{ name: 'd', type: 'fixed', amount: 101 }] },
      'discounts',
    ],
    [
      'an amount over 999,999,999,999',
      { items: [{ name: 'X', quantity: 1_000_000, unitPrice: 1_000_000_000 }] },
      'items',
    ],
  ])('When the body has %s, then 400 ORDER_CREATE_FAILED with details (D7, D9, D10)', async (_, body, path) => {
    const response = await test.post('/v0/orders', body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ORDER_CREATE_FAILED');
    expect(response.body.details.length).toBeGreaterThan(0);
    expect(response.body.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it.each([
    ['unparseable JSON', '{"items": [', 'application/json'],
    ['a JSON array', '[1,2]', 'application/json'],
    ['a bare value', '42', 'application/json'],
    ['a non-JSON content type', '{"items":[]}', 'text/plain'],
  ])('When the body is %s, then 400 INVALID_REQUEST (D7)', async (_, raw, contentType) => {
    const response = await test.send('POST', '/v0/orders', undefined, { 'content-type': contentType }, raw);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_REQUEST');
  });

  it('When the body is over 1 MiB, then 413 PAYLOAD_TOO_LARGE (D7)', async () => {
    const response = await test.send(
      'POST',
      '/v0/orders',
      undefined,
      {},
      JSON.stringify({ items: [{ name: 'x'.repeat(1024 * 1024 + 10), quantity: 1, unitPrice: 1 }] }),
    );
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  describe('locations (D14)', () => {
    it('When locationId is malformed, then 400 INVALID_LOCATION_ID', async () => {
      const response = await test.post('/v0/orders', buildOrderInput({ locationId: 'store-7' }));
      expect(response.body.code).toBe('INVALID_LOCATION_ID');
      expect(response.status).toBe(400);
    });

    it('When locationId is unknown or of the other mode, then 400 LOCATION_NOT_FOUND; an existing one is stored and filterable', async () => {
      const unknown = await test.post(
        '/v0/orders',
        buildOrderInput({ locationId: 'loc_test_AAAAAAAAAAAAAAAAAAAAAAAA' }),
      );
      expect(unknown).toMatchObject({ status: 400, body: { code: 'LOCATION_NOT_FOUND' } });
      const { location: liveLocation } = await stack.admin.call<{ location: { id: string } }>(
        'POST',
        `/organizations/${organizationId}/locations`,
        { mode: 'live', name: 'Live shop' },
      );
      const otherMode = await test.post(
        '/v0/orders',
        buildOrderInput({ locationId: liveLocation.id.replace('_live_', '_test_') }),
      );
      expect(otherMode.body.code).toBe('LOCATION_NOT_FOUND');
      const { location } = await stack.admin.call<{ location: { id: string } }>(
        'POST',
        `/organizations/${organizationId}/locations`,
        { mode: 'test', name: 'Test shop' },
      );
      const order = await createOrder(test, { locationId: location.id });
      expect(order.locationId).toBe(location.id);
      const filtered = await test.get(`/v0/orders?locationId=${location.id}`);
      expect(filtered.body.orders.map((o: { id: string }) => o.id)).toEqual([order.id]);
    });
  });

  describe('payment destinations (D15)', () => {
    const evm = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

    it('When paymentDestination is neither an id nor an address, then 400 INVALID_PAYMENT_DESTINATION', async () => {
      const response = await test.post('/v0/orders', buildOrderInput({ paymentDestination: 'my wallet' }));
      expect(response).toMatchObject({ status: 400, body: { code: 'INVALID_PAYMENT_DESTINATION' } });
    });

    it('When no destination matches, then PAYMENT_DESTINATION_NOT_FOUND; inactive or unverified ones are NOT_ACTIVE; an active verified one is accepted by id and by address', async () => {
      expect((await test.post('/v0/orders', buildOrderInput({ paymentDestination: evm(1) }))).body.code).toBe(
        'PAYMENT_DESTINATION_NOT_FOUND',
      );
      expect(
        (await test.post('/v0/orders', buildOrderInput({ paymentDestination: 'pd_test_AAAAAAAAAAAAAAAAAAAAAAAA' })))
          .body.code,
      ).toBe('PAYMENT_DESTINATION_NOT_FOUND');
      const create = (address: string, status: string, verified: boolean) =>
        stack.admin.call<{ paymentDestination: { id: string } }>(
          'POST',
          `/organizations/${organizationId}/payment-destinations`,
          { mode: 'test', address, status, verified },
        );
      const inactive = (await create(evm(2), 'inactive', true)).paymentDestination;
      const unverified = (await create(evm(3), 'active', false)).paymentDestination;
      const good = (await create(evm(4), 'active', true)).paymentDestination;
      expect((await test.post('/v0/orders', buildOrderInput({ paymentDestination: inactive.id }))).body.code).toBe(
        'PAYMENT_DESTINATION_NOT_ACTIVE',
      );
      expect((await test.post('/v0/orders', buildOrderInput({ paymentDestination: evm(3) }))).body.code).toBe(
        'PAYMENT_DESTINATION_NOT_ACTIVE',
      );
      expect((await createOrder(test, { paymentDestination: good.id })).paymentDestination).toBe(good.id);
      expect((await createOrder(test, { paymentDestination: evm(4) })).paymentDestination).toBe(evm(4));
      expect(
        (await live.post('/v0/orders', buildOrderInput({ paymentDestination: good.id.replace('_test_', '_live_') })))
          .body.code,
      ).toBe('PAYMENT_DESTINATION_NOT_FOUND');
      await stack.admin.call('PATCH', `/organizations/${organizationId}/payment-destinations/${good.id}`, {
        mode: 'test',
        status: 'deleted',
      });
      expect((await test.post('/v0/orders', buildOrderInput({ paymentDestination: good.id }))).body.code).toBe(
        'PAYMENT_DESTINATION_NOT_ACTIVE',
      );
      expect(unverified.id).toMatch(/^pd_test_/);
    });
  });
});

describe('GET /v0/orders/:orderId', () => {
  it('When the order exists, then it is returned as created', async () => {
    const order = await createOrder(test);
    const response = await test.get(`/v0/orders/${order.id}`);
    expect(response.status).toBe(200);
    expect(response.body.order).toEqual(order);
  });

  it('When the id is malformed, then 400 INVALID_ORDER_ID (D4)', async () => {
    for (const id of ['123', 'ord_prod_abc', 'cs_test_abc', 'ord_test_', `ord_test_${'a'.repeat(65)}`]) {
      const response = await test.get(`/v0/orders/${id}`);
      expect(response.status, id).toBe(400);
      expect(response.body.code).toBe('INVALID_ORDER_ID');
    }
  });

  it('When the order belongs to the other mode or another organization, or does not exist, then 404 ORDER_NOT_FOUND (D4)', async () => {
    const order = await createOrder(test);
    for (const [api, id] of [
      [live, order.id],
      [live, order.id.replace('_test_', '_live_')],
      [otherOrg, order.id],
      [test, 'ord_test_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ] as const) {
      const response = await api.get(`/v0/orders/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('ORDER_NOT_FOUND');
    }
  });
});

describe('GET /v0/orders', () => {
  it('When listing, then orders are newest first, paginated with the true total, and limited to the key’s organization and mode (D20)', async () => {
    const fresh = await stack.admin.createOrganizationWithKeys('Listing Org');
    const api = new Api(stack.gatewayUrl, fresh.testKey);
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await createOrder(api, { metadata: { n: String(i) } }));
    await createOrder(new Api(stack.gatewayUrl, fresh.liveKey));
    const page1 = await api.get('/v0/orders?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 5, hasMore: true });
    expect(page1.body.orders.map((o: { id: string }) => o.id)).toEqual([created[4].id, created[3].id]);
    const page3 = await api.get('/v0/orders?limit=2&page=3');
    expect(page3.body.pagination).toEqual({ page: 3, limit: 2, total: 5, hasMore: false });
    expect(page3.body.orders).toHaveLength(1);
    const past = await api.get('/v0/orders?page=9');
    expect(past.body).toEqual({ orders: [], pagination: { page: 9, limit: 20, total: 5, hasMore: false } });
    await api.post(`/v0/orders/${created[0].id}/cancel`);
    const cancelled = await api.get('/v0/orders?status=cancelled&paymentStatus=unpaid&provider=native');
    expect(cancelled.body.orders.map((o: { id: string }) => o.id)).toEqual([created[0].id]);
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=',
    'limit=1.5',
    'page=0',
    'page=-1',
    'status=paid',
    'provider=shopify',
    'colour=red',
  ])('When the query is ?%s, then 400 ORDERS_FETCH_FAILED (D7, D20)', async (query) => {
    const response = await test.get(`/v0/orders?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ORDERS_FETCH_FAILED');
    expect(response.body.details.length).toBeGreaterThan(0);
  });

  it('When the locationId filter is malformed, then 400 INVALID_LOCATION_ID (D7)', async () => {
    expect((await test.get('/v0/orders?locationId=nope')).body.code).toBe('INVALID_LOCATION_ID');
  });
});

describe('PATCH /v0/orders/:orderId', () => {
  it('When items, taxes or discounts are replaced, then amounts are recalculated and updatedAt moves', async () => {
    const order = await createOrder(test, {
      taxes: [{ name: 'VAT', type: 'additive', amount: 50 }],
      metadata: { keep: 'no' },
    });
    const response = await test.patch(`/v0/orders/${order.id}`, {
      items: [{ name: 'Cake', quantity: 3, unitPrice: 500 }],
      taxes: [],
      discounts: [{ name: 'Fixed', type: 'fixed', amount: 100 }],
      metadata: { new: 'yes' },
    });
    expect(response.status).toBe(200);
    const updated = response.body.order;
    expect(updated.amounts).toEqual({
      subtotal: 1500,
      tax: 0,
      discount: 100,
      tip: 0,
      total: 1400,
      paid: 0,
      refunded: 0,
    });
    expect(updated.taxes).toEqual([]);
    expect(updated.metadata).toEqual({ new: 'yes' });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(order.updatedAt));
    expect(updated.createdAt).toBe(order.createdAt);
  });

  it('When only the customer name is given, then it merges into the snapshot; a new email switches customer (D11)', async () => {
    const email = `${uniqueId('c')}@example.com`;
    const order = await createOrder(test, { customer: { email, phone: '+1 555 0100' } });
    const merged = (await test.patch(`/v0/orders/${order.id}`, { customer: { name: 'Grace' } })).body.order;
    expect(merged.customer).toEqual({ id: order.customer.id, email, phone: '+1 555 0100', name: 'Grace' });
    const switched = (await test.patch(`/v0/orders/${order.id}`, { customer: { email: `other-${email}` } })).body.order;
    expect(switched.customer.id).not.toBe(order.customer.id);
    expect(switched.customer.email).toBe(`other-${email}`);
  });

  it('When the body is empty or changes nothing, then updatedAt stays (D36); metadata {} stores an empty object', async () => {
    const order = await createOrder(test, { metadata: { a: '1' } });
    expect((await test.patch(`/v0/orders/${order.id}`, {})).body.order.updatedAt).toBe(order.updatedAt);
    expect((await test.patch(`/v0/orders/${order.id}`, { metadata: { a: '1' } })).body.order.updatedAt).toBe(
      order.updatedAt,
    );
    expect((await test.patch(`/v0/orders/${order.id}`, { metadata: {} })).body.order.metadata).toEqual({});
  });

  it('When externalId or an unknown field is sent, then 400 ORDER_UPDATE_FAILED (D8, D7)', async () => {
    const order = await createOrder(test);
    for (const body of [{ externalId: 'new' }, { items: [] }, { colour: 'red' }, { taxes: null }]) {
      const response = await test.patch(`/v0/orders/${order.id}`, body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('ORDER_UPDATE_FAILED');
    }
  });

  it('When the order is cancelled, then 400 ORDER_NOT_EDITABLE', async () => {
    const order = await createOrder(test);
    await test.post(`/v0/orders/${order.id}/cancel`);
    const response = await test.patch(`/v0/orders/${order.id}`, { metadata: { a: 'b' } });
    expect(response).toMatchObject({ status: 400, body: { code: 'ORDER_NOT_EDITABLE' } });
  });

  it('When the id is malformed or elsewhere, then INVALID_ORDER_ID or ORDER_NOT_FOUND', async () => {
    const order = await createOrder(test);
    expect((await test.patch('/v0/orders/nope', {})).body.code).toBe('INVALID_ORDER_ID');
    expect((await otherOrg.patch(`/v0/orders/${order.id}`, {})).body.code).toBe('ORDER_NOT_FOUND');
  });
});

describe('POST /v0/orders/:orderId/cancel', () => {
  it('When an open order is cancelled twice, then both answer 200 cancelled and the second changes nothing (idempotent, D36)', async () => {
    const order = await createOrder(test);
    const first = await test.post(`/v0/orders/${order.id}/cancel`);
    expect(first.status).toBe(200);
    expect(first.body.order.status).toBe('cancelled');
    const second = await test.post(`/v0/orders/${order.id}/cancel`);
    expect(second.status).toBe(200);
    expect(second.body.order).toEqual(first.body.order);
  });

  it('When the order is elsewhere, then 404 ORDER_NOT_FOUND; a malformed id is INVALID_ORDER_ID', async () => {
    const order = await createOrder(test);
    expect((await live.post(`/v0/orders/${order.id}/cancel`)).body.code).toBe('ORDER_NOT_FOUND');
    expect((await test.post('/v0/orders/x/cancel')).body.code).toBe('INVALID_ORDER_ID');
    expect((await test.get(`/v0/orders/${order.id}`)).body.order.status).toBe('open');
  });
});

describe('Authentication and errors (D5, D6, D7)', () => {
  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a publishable-looking key', 'Bearer pk_test_abc'],
  ])('When the request has %s, then 401 UNAUTHORIZED', async (_, authorization) => {
    const response = await new Api(stack.gatewayUrl, undefined).get(
      '/v0/orders',
      authorization ? { authorization } : {},
    );
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('UNAUTHORIZED');
  });

  it('When the key is unknown or revoked, then 401 INVALID_API_KEY', async () => {
    const unknown = await test.withKey(`sk_test_${'A'.repeat(44)}`).get('/v0/orders');
    expect(unknown).toMatchObject({ status: 401, body: { code: 'INVALID_API_KEY' } });
    const key = await stack.admin.createKey(organizationId, 'test');
    expect((await test.withKey(key.secret).get('/v0/orders')).status).toBe(200);
    await stack.admin.call('POST', `/organizations/${organizationId}/keys/${key.id}/revoke`);
    expect((await test.withKey(key.secret).get('/v0/orders')).body.code).toBe('INVALID_API_KEY');
  });

  it('When the key’s organization does not exist, then 400 ORGANIZATION_NOT_FOUND', async () => {
    const { MongoClient } = await import('mongodb');
    const { generateApiKey } = await import('@checkout/gateway/api-keys');
    const key = generateApiKey('test');
    const client = new MongoClient(process.env.MONGODB_URL ?? '');
    try {
      await client
        .db(stack.env.gateway.MONGODB_DATABASE)
        .collection('api_keys')
        .insertOne({
          _id: key.lookupId as never,
          keyId: `key_orphan_${key.lookupId}`,
          hash: key.hash,
          last4: key.last4,
          organizationId: 'org_gone',
          mode: 'test',
          status: 'active',
          createdAt: new Date(),
        });
    } finally {
      await client.close();
    }
    const response = await test.withKey(key.secret).get('/v0/orders');
    expect(response).toMatchObject({ status: 400, body: { code: 'ORGANIZATION_NOT_FOUND' } });
  });

  it('When the route is unknown, then 404 NOT_FOUND; a known path with the wrong method is 405 METHOD_NOT_ALLOWED', async () => {
    const unknown = await test.get('/v0/refunds');
    expect(unknown).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const wrongMethod = await test.send('DELETE', '/v0/orders');
    expect(wrongMethod).toMatchObject({ status: 405, body: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it('When any error is answered, then the body is the D6 envelope and its requestId equals X-Request-Id', async () => {
    const response = await test.get('/v0/orders/ord_test_AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(Object.keys(response.body).sort()).toEqual(['code', 'message', 'requestId']);
    expect(response.body.requestId).toBe(response.headers['x-request-id']);
  });
});

describe('GET /v0/openapi.json', () => {
  it('When fetched, then it is an OpenAPI 3.1 document generated from the request schemas', async () => {
    const response = await new Api(stack.gatewayUrl, undefined).get('/v0/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const create = response.body.paths['/v0/orders'].post;
    const ref: string = create.requestBody.content['application/json'].schema.$ref;
    const schema = response.body.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(schema.required).toContain('items');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining([
        '/v0/orders',
        '/v0/orders/{orderId}',
        '/v0/orders/{orderId}/cancel',
        '/v0/checkout/sessions',
        '/v0/checkout/sessions/{sessionId}',
        '/v0/events',
      ]),
    );
    expect(create.responses['409'].description).toContain('DUPLICATE_EXTERNAL_ID');
  });
});

describe('Dependency outages (D7)', () => {
  it('When the orders service is down, then 503 SERVICE_UNAVAILABLE with Retry-After, never a hang; it recovers by itself', async () => {
    const outage = await startStack({}, ['gateway']);
    try {
      const org = await outage.admin.createOrganizationWithKeys('Outage Org');
      const api = new Api(outage.gatewayUrl, org.testKey);
      // The call returning at all is the point (no hang); the test's own timeout would catch one.
      const response = await api.post('/v0/orders', buildOrderInput());
      expect(response.status).toBe(503);
      expect(response.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBeDefined();
      await outage.startService('orders');
      await eventually(async () => (await api.post('/v0/orders', buildOrderInput())).status === 201, {
        deadlineMs: 30_000,
        description: 'orders to answer again',
      });
    } finally {
      await outage.stop();
    }
  });

  it('When an internal service refuses the internal token, then the merchant sees 503, not an API-key error', async () => {
    const mismatched = await startStack({}, ['gateway']);
    try {
      // Orders admits a gateway whose token is another than the one this gateway sends.
      await mismatched.startService('orders', {
        INTERNAL_CALLERS: internalCallers({ gateway: newSecret(), sessions: newSecret() }),
      });
      const org = await mismatched.admin.createOrganizationWithKeys('Rotation Org');
      const response = await new Api(mismatched.gatewayUrl, org.testKey).get('/v0/orders');
      expect(response).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      await mismatched.stop();
    }
  });
});
