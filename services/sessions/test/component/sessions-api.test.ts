import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { CheckoutSession } from '@checkout/contracts';
import { newTenant, sessionRequest, startStack, stopAll, uniqueName, type Stack, type Tenant } from './harness';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('api');
});
afterAll(() => stopAll(stack));

/** POST /internal/sessions as the gateway would: sessionRequest's body with `overrides`. */
const postSession = (tenant: Tenant, overrides: Record<string, unknown> = {}) =>
  stack.api('POST', '/internal/sessions', tenant, sessionRequest(overrides));

describe('POST /internal/sessions', () => {
  it('When created, then 201 with the exact CheckoutSession shape, placeholders substituted and the order embedded (D1, D22, D39)', async () => {
    const tenant = newTenant();
    const res = await postSession(tenant, {
      callbackUrl: 'https://hooks.example/{SESSION_ID}/{SESSION_ID}?o={ORDER_ID}&x={OTHER}',
    });
    expect(res.status).toBe(201);
    const session = res.body.session;
    expect(CheckoutSession.strict().safeParse(session).success).toBe(true);
    expect(session.id).toMatch(/^cs_test_[0-9A-Za-z]{24}$/);
    expect(session.url).toBe(`http://127.0.0.1:8080/checkout/${session.id}`);
    expect(session.status).toBe('pending');
    expect(session.active).toBe(true);
    expect(session.failedAttempts).toBe(0);
    expect(session.successUrl).toBe(`https://merchant.example/thanks?session=${session.id}&order=${session.order.id}`);
    expect(session.callbackUrl).toBe(
      `https://hooks.example/${session.id}/${session.id}?o=${session.order.id}&x={OTHER}`,
    );
    expect(session.sessionData).toEqual({});
    expect(session).not.toHaveProperty('customerId');
    expect(session.requireFromCustomer).toEqual({ phone: false, shippingAddress: false, location: false });
    expect(session.order).toMatchObject({
      status: 'open',
      paymentStatus: 'unpaid',
      amounts: { subtotal: 1225, tax: 98, discount: 100, total: 1223, paid: 0 },
    });
    expect(new Date(session.expiresAt).getTime() - new Date(session.createdAt).getTime()).toBe(60 * 60_000);
  });

  it('When no callbackUrl is sent, then the organization default is used with placeholders; with neither it is null (D22)', async () => {
    const withDefault = newTenant({
      settings: {
        organizationName: 'Acme',
        defaultCallbackUrl: 'https://default.example/hook/{ORDER_ID}',
        enabledPaymentMethods: ['card'],
      },
    });
    const a = await postSession(withDefault, { successUrl: undefined });
    expect(a.status).toBe(201);
    expect(a.body.session.callbackUrl).toBe(`https://default.example/hook/${a.body.session.order.id}`);
    expect(a.body.session.successUrl).toBeNull();
    const b = await postSession(newTenant());
    expect(b.body.session.callbackUrl).toBeNull();
  });

  it('When a customer is given, then customerId is the order customer id', async () => {
    const res = await postSession(newTenant(), { customer: { email: 'Ann@Example.com' } });
    expect(res.status).toBe(201);
    expect(res.body.session.customerId).toBe(res.body.session.order.customer.id);
  });

  it('When the total is 0, then 400 SESSION_CREATION_FAILED and no order is left (D24)', async () => {
    const tenant = newTenant();
    const res = await postSession(tenant, {
      items: [{ name: 'Free', quantity: 1, unitPrice: 0 }],
      taxes: [],
      discounts: [],
      externalId: 'free-1',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('SESSION_CREATION_FAILED');
    const list = await stack.orders('GET', '/internal/orders', tenant);
    expect(list.body.pagination.total).toBe(0);
    // The externalId was not used up.
    const again = await postSession(tenant, { externalId: 'free-1' });
    expect(again.status).toBe(201);
  });

  it('When the body is invalid, then the endpoint codes apply (D7, D14, D15)', async () => {
    const tenant = newTenant();
    const bad = await postSession(tenant, { expiresInMinutes: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('SESSION_CREATION_FAILED');
    expect(bad.body.details[0].path).toBe('expiresInMinutes');
    expect((await postSession(tenant, { locationId: 'nope' })).body.code).toBe('INVALID_LOCATION_ID');
    expect((await postSession(tenant, { paymentDestination: 'nope' })).body.code).toBe('INVALID_PAYMENT_DESTINATION');
    expect((await postSession(tenant, { locationId: 'loc_test_abc' })).body.code).toBe('LOCATION_NOT_FOUND');
    const pd = await postSession(tenant, { paymentDestination: '0x' + 'a'.repeat(40) });
    expect(pd.body.code).toBe('PAYMENT_DESTINATION_NOT_FOUND');
    const discount = await postSession(tenant, { discounts: [{ name: 'x', type: 'fixed', amount: 999_999 }] });
    expect(discount.status).toBe(400);
    expect(discount.body.code).toBe('SESSION_CREATION_FAILED');
    expect(discount.body.details.length).toBeGreaterThan(0);
  });

  it('When a locale is given, then the session keeps it; none is auto; one the page does not speak is 400 INVALID_REQUEST (D53)', async () => {
    const tenant = newTenant();
    const arabic = await postSession(tenant, { locale: 'ar' });
    expect(arabic.status).toBe(201);
    expect(arabic.body.session.locale).toBe('ar');
    expect((await stack.api('GET', `/internal/sessions/${arabic.body.session.id}`, tenant)).body.session.locale).toBe(
      'ar',
    );
    expect((await postSession(tenant)).body.session.locale).toBe('auto');
    for (const locale of ['pt', 'en-US', 'klingon']) {
      const refused = await postSession(tenant, { locale });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('INVALID_REQUEST');
      expect(refused.body.details[0].path).toBe('locale');
    }
  });

  it("When no locale is given, then the session takes the organization's defaultLocale; one given, or auto, wins over it (D53)", async () => {
    const base = newTenant();
    const tenant = newTenant({ settings: { ...base.settings!, defaultLocale: 'de' } });
    expect((await postSession(tenant)).body.session.locale).toBe('de');
    expect((await postSession(tenant, { locale: 'ja' })).body.session.locale).toBe('ja');
    expect((await postSession(tenant, { locale: 'auto' })).body.session.locale).toBe('auto');
  });

  it('When an externalId is reused, then 409 DUPLICATE_EXTERNAL_ID; the other mode may reuse it (D37)', async () => {
    const tenant = newTenant();
    const first = await postSession(tenant, { externalId: 'ext-1' });
    expect(first.status).toBe(201);
    expect(first.body.session.order.externalId).toBe('ext-1');
    const dup = await postSession(tenant, { externalId: 'ext-1' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('DUPLICATE_EXTERNAL_ID');
    const live = await postSession({ ...tenant, mode: 'live' }, { externalId: 'ext-1' });
    expect(live.status).toBe(201);
    expect(live.body.session.id).toMatch(/^cs_live_/);
  });

  it('When 20 creates with one externalId run at once, then exactly one 201 and 19 × 409 (D37)', async () => {
    const tenant = newTenant();
    const externalId = uniqueName('race');
    const results = await Promise.all(Array.from({ length: 20 }, () => postSession(tenant, { externalId })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const list = await stack.orders('GET', '/internal/orders', tenant);
    expect(list.body.pagination.total).toBe(1);
  });
});

describe('GET /internal/sessions/:id', () => {
  it('When read, then it is identical to the created one; other orgs and modes get 404; malformed ids 400 (D4)', async () => {
    const tenant = newTenant();
    const created = (await postSession(tenant)).body.session;
    const read = await stack.api('GET', `/internal/sessions/${created.id}`, tenant);
    expect(read.status).toBe(200);
    expect(read.body.session).toEqual(created);
    expect((await stack.api('GET', `/internal/sessions/${created.id}`, newTenant())).body.code).toBe(
      'SESSION_NOT_FOUND',
    );
    expect((await stack.api('GET', `/internal/sessions/${created.id}`, { ...tenant, mode: 'live' })).status).toBe(404);
    const bad = await stack.api('GET', '/internal/sessions/nope', tenant);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_SESSION_ID');
  });

  it('When the order is edited, then the session shows the order as it is now, from the order.updated event (D25)', async () => {
    const tenant = newTenant();
    const created = (await postSession(tenant)).body.session;
    const edited = await stack.orders('PATCH', `/internal/orders/${created.order.id}`, tenant, {
      items: [{ name: 'Tea', quantity: 1, unitPrice: 300 }],
    });
    expect(edited.status).toBe(200);
    // Reads present the session's copy of the order (no call to orders); orders' event brings the edit.
    const read = await eventually(
      async () => {
        const session = (await stack.api('GET', `/internal/sessions/${created.id}`, tenant)).body.session;
        return session.order.updatedAt === edited.body.order.updatedAt ? session : undefined;
      },
      { description: 'the edit reaches the session' },
    );
    expect(read.order).toEqual(edited.body.order);
    expect(read.order.items.map((i: { name: string }) => i.name)).toEqual(['Tea']);
  });

  it('When no internal token is sent, then 401', async () => {
    const res = await stack.api('GET', '/internal/sessions/cs_test_abc', null);
    expect(res.status).toBe(401);
  });
});

describe('PATCH /internal/sessions/:id', () => {
  it('When extendExpiry is given, then minutes are added; past 7 days it fails (D23)', async () => {
    const tenant = newTenant();
    const created = (await postSession(tenant, { expiresInMinutes: 1440 })).body.session;
    const extended = await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, { extendExpiry: 30 });
    expect(extended.status).toBe(200);
    expect(new Date(extended.body.session.expiresAt).getTime() - new Date(created.expiresAt).getTime()).toBe(
      30 * 60_000,
    );
    expect(extended.body.session.updatedAt >= created.updatedAt).toBe(true);
    // 1440 + 30 minutes so far; 5 × 1440 more stays within 7 days (8670 < 10080), a sixth does not.
    for (let i = 0; i < 5; i += 1)
      expect(
        (await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, { extendExpiry: 1440 })).status,
      ).toBe(200);
    const tooLong = await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, { extendExpiry: 1440 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('SESSION_UPDATE_FAILED');
    const outOfBounds = await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, { extendExpiry: 0 });
    expect(outOfBounds.body.code).toBe('SESSION_UPDATE_FAILED');
    expect(outOfBounds.body.details[0].path).toBe('extendExpiry');
  });

  it('When sessionData is sent twice, then it merges shallowly and keeps odd keys; an empty PATCH changes nothing (D23, D36)', async () => {
    const tenant = newTenant();
    const created = (await postSession(tenant)).body.session;
    await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, {
      sessionData: { 'a.b': 1, $c: { d: [1, 2] }, keep: 'x' },
    });
    const second = await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, {
      sessionData: { keep: 'y', more: true },
    });
    expect(second.body.session.sessionData).toEqual({ 'a.b': 1, $c: { d: [1, 2] }, keep: 'y', more: true });
    const empty = await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, {});
    expect(empty.body.session.updatedAt).toBe(second.body.session.updatedAt);
    const tooMany = await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, {
      sessionData: Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`k${i}`, i])),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe('SESSION_UPDATE_FAILED');
  });

  it('When the session is expired, then extendExpiry fails but sessionData still merges (D23)', async () => {
    const tenant = newTenant();
    const created = (await postSession(tenant)).body.session;
    expect((await stack.api('POST', `/internal/test-helpers/sessions/${created.id}/expire`, tenant)).status).toBe(200);
    expect((await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, { extendExpiry: 5 })).body.code).toBe(
      'SESSION_UPDATE_FAILED',
    );
    const data = await stack.api('PATCH', `/internal/sessions/${created.id}`, tenant, { sessionData: { after: 1 } });
    expect(data.status).toBe(200);
    expect(data.body.session.sessionData).toEqual({ after: 1 });
  });
});

describe("GET /internal/sessions (D47: the dashboard's list)", () => {
  it('When a tenant lists its sessions, then newest first, paginated, with their orders; another tenant and the other mode see none of them', async () => {
    const tenant = newTenant();
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await stack.createSession(tenant));
    const first = await stack.api('GET', '/internal/sessions?limit=2', tenant);
    expect(first.status).toBe(200);
    expect(first.body.sessions.map((s: { id: string }) => s.id)).toEqual([created[2].id, created[1].id]);
    expect(first.body.pagination).toEqual({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(CheckoutSession.strict().safeParse(first.body.sessions[0]).success).toBe(true);
    const second = await stack.api('GET', '/internal/sessions?limit=2&page=2', tenant);
    expect(second.body.sessions.map((s: { id: string }) => s.id)).toEqual([created[0].id]);
    expect((await stack.api('GET', '/internal/sessions', newTenant())).body.sessions).toEqual([]);
    expect((await stack.api('GET', '/internal/sessions', { ...tenant, mode: 'live' })).body.sessions).toEqual([]);
  });

  it('When the query is malformed, then 400 INVALID_REQUEST', async () => {
    const res = await stack.api('GET', '/internal/sessions?limit=0', newTenant());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_REQUEST');
  });
});
