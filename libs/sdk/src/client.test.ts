import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DELIVERY_SEARCH_MAX as CONTRACT_SEARCH_MAX, webhookHeaders } from '@checkout/contracts';
import {
  Checkout,
  CheckoutApiError,
  CheckoutConnectionError,
  WebhookVerificationError,
  isCheckoutApiError,
  webhooks,
} from './index';
import { DELIVERY_SEARCH_MAX } from './resources/events';

// The client against a scripted local HTTP server: no engines, only what the SDK does with answers.

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
/** `raw`: a body sent as it is (a CSV), not as JSON. */
type Answer = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> } | 'drop';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function scripted(answers: Answer[] | ((seen: Seen) => Answer)): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(request);
      const answer = typeof answers === 'function' ? answers(request) : (answers[seen.length - 1] ?? { status: 500 });
      if (answer === 'drop') return req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server?.address() as AddressInfo).port}`, seen };
}

const order = (id: string) => ({ id, status: 'open' });
const client = (baseUrl: string, maxRetries = 2) =>
  new Checkout('sk_test_abc', { baseUrl, maxRetries, retryDelayMs: 1, maxRetryDelayMs: 5 });

describe('Checkout SDK requests', () => {
  it('When a POST meets a 503 and then a dropped connection, then it retries with one Idempotency-Key and returns the result (D42)', async () => {
    const { baseUrl, seen } = await scripted([
      {
        status: 503,
        body: { code: 'SERVICE_UNAVAILABLE', message: 'later', requestId: 'r1' },
        headers: { 'retry-after': '0' },
      },
      'drop',
      { status: 201, body: { order: order('ord_test_1') } },
    ]);
    const created = await client(baseUrl).orders.create({ items: [{ name: 'A', quantity: 1, unitPrice: 1 }] });
    expect(created.id).toBe('ord_test_1');
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^sdk_/);
    expect(seen[0]?.headers.authorization).toBe('Bearer sk_test_abc');
  });

  it('When the caller gives an Idempotency-Key, then that key is sent', async () => {
    const { baseUrl, seen } = await scripted([{ status: 201, body: { session: { id: 'cs_test_1' } } }]);
    await client(baseUrl).checkoutSessions.create(
      { items: [{ name: 'A', quantity: 1, unitPrice: 1 }] },
      { idempotencyKey: 'mine-1' },
    );
    expect(seen[0]?.headers['idempotency-key']).toBe('mine-1');
  });

  it('When the first request with the key is still running (409 IN_USE), then the POST is retried', async () => {
    const { baseUrl, seen } = await scripted([
      {
        status: 409,
        body: { code: 'IDEMPOTENCY_KEY_IN_USE', message: 'busy', requestId: 'r' },
        headers: { 'retry-after': '0' },
      },
      { status: 200, body: { session: { id: 'cs_test_2' } } },
    ]);
    const session = await client(baseUrl).testHelpers.checkoutSessions.pay('cs_test_2');
    expect(session.id).toBe('cs_test_2');
    expect(seen).toHaveLength(2);
  });

  it('When the API answers a 4xx, then a typed error carries code, details and requestId, and nothing is retried', async () => {
    const { baseUrl, seen } = await scripted([
      {
        status: 400,
        body: {
          code: 'ORDER_CREATE_FAILED',
          message: 'bad',
          details: [{ path: 'items', message: 'required' }],
          requestId: 'req_9',
        },
      },
    ]);
    const error = await client(baseUrl)
      .orders.create({ items: [] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CheckoutApiError);
    expect(isCheckoutApiError(error, 'ORDER_CREATE_FAILED')).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      code: 'ORDER_CREATE_FAILED',
      details: [{ path: 'items', message: 'required' }],
      requestId: 'req_9',
    });
    expect(seen).toHaveLength(1);
  });

  it('When 429s outlast the retries, then the last error is thrown after 1 + maxRetries attempts', async () => {
    const { baseUrl, seen } = await scripted(() => ({
      status: 429,
      body: { code: 'RATE_LIMITED', message: 'slow', requestId: 'r' },
      headers: { 'retry-after': '0' },
    }));
    const error = await client(baseUrl, 3)
      .orders.retrieve('ord_test_1')
      .catch((err: unknown) => err);
    expect(isCheckoutApiError(error, 'RATE_LIMITED')).toBe(true);
    expect(seen).toHaveLength(4);
  });

  it('When rotate_secret meets a 503 or a dropped connection, then it is not repeated (a second rotation would drop the first new secret, D50); a 429 is retried', async () => {
    const unavailable = { status: 503, body: { code: 'SERVICE_UNAVAILABLE', message: 'later', requestId: 'r' } };
    const first = await scripted([unavailable, { status: 200, body: { endpoint: { id: 'we_test_1' } } }]);
    const error = await client(first.baseUrl, 3)
      .webhookEndpoints.rotateSecret('we_test_1')
      .catch((err: unknown) => err);
    expect(isCheckoutApiError(error, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(first.seen).toHaveLength(1);
    expect(first.seen[0]?.headers['idempotency-key']).toBeUndefined();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

    const dropped = await scripted(['drop', { status: 200, body: { endpoint: { id: 'we_test_1' } } }]);
    await expect(client(dropped.baseUrl, 3).webhookEndpoints.rotateSecret('we_test_1')).rejects.toBeInstanceOf(
      CheckoutConnectionError,
    );
    expect(dropped.seen).toHaveLength(1);
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

    const limited = await scripted([
      { status: 429, body: { code: 'RATE_LIMITED', message: 'slow', requestId: 'r' }, headers: { 'retry-after': '0' } },
      { status: 200, body: { endpoint: { id: 'we_test_1', secret: 'whsec_new' } } },
    ]);
    expect(await client(limited.baseUrl, 3).webhookEndpoints.rotateSecret('we_test_1')).toMatchObject({
      secret: 'whsec_new',
    });
    expect(limited.seen).toHaveLength(2);
  });

  it('When a daily budget is used up (429 QUOTA_EXCEEDED), then it is thrown at once with its quota, never retried', async () => {
    const quota = { budget: 'events', limit: 10_000, resetsAt: '2026-11-30T00:00:00.000Z' };
    const { baseUrl, seen } = await scripted(() => ({
      status: 429,
      body: { code: 'QUOTA_EXCEEDED', message: 'used up', quota, requestId: 'r' },
      headers: { 'retry-after': '3600' },
    }));
    const error = await client(baseUrl, 3)
      .orders.create({ items: [{ name: 'Tea', quantity: 1, unitPrice: 100 }] })
      .catch((err: unknown) => err);
    expect(isCheckoutApiError(error, 'QUOTA_EXCEEDED')).toBe(true);
    expect(error).toMatchObject({ status: 429, quota, retryAfterSeconds: 3600 });
    expect(seen).toHaveLength(1);
  });

  it('When nothing answers, then a CheckoutConnectionError is thrown', async () => {
    const { baseUrl } = await scripted(() => 'drop');
    await expect(client(baseUrl, 1).orders.retrieve('ord_test_1')).rejects.toBeInstanceOf(CheckoutConnectionError);
  });

  it('When a list is iterated, then every page is fetched in turn and an item shifted onto the next page is yielded once', async () => {
    const pages: Record<string, unknown> = {
      '1': {
        orders: [order('ord_test_c'), order('ord_test_b')],
        pagination: { page: 1, limit: 2, total: 4, hasMore: true },
      },
      '2': {
        orders: [order('ord_test_b'), order('ord_test_a')],
        pagination: { page: 2, limit: 2, total: 4, hasMore: false },
      },
    };
    const { baseUrl, seen } = await scripted((s) => ({
      status: 200,
      body: pages[new URL(s.url, 'http://x').searchParams.get('page') ?? ''],
    }));
    const ids: string[] = [];
    for await (const o of client(baseUrl).orders.list({ status: 'open', limit: 2 })) ids.push(o.id);
    expect(ids).toEqual(['ord_test_c', 'ord_test_b', 'ord_test_a']);
    expect(seen.map((s) => s.url)).toEqual([
      '/v0/orders?status=open&limit=2&page=1',
      '/v0/orders?status=open&limit=2&page=2',
    ]);
    const first = await client(baseUrl).orders.list({ limit: 2 });
    expect(first.pagination.hasMore).toBe(true);
  });

  it('When refunds are created, read and listed, then each call goes to its D48 path, a create with an Idempotency-Key, and the refund itself is returned', async () => {
    const refund = (id: string) => ({ id, orderId: 'ord_test_1', amount: 100, status: 'succeeded' });
    const { baseUrl, seen } = await scripted((request) => {
      if (request.method === 'POST') return { status: 201, body: { refund: refund('re_test_new') } };
      if (request.url.startsWith('/v0/refunds/')) return { status: 200, body: { refund: refund('re_test_one') } };
      const page = new URL(request.url, 'http://x').searchParams.get('page');
      return page === '1'
        ? {
            status: 200,
            body: { refunds: [refund('re_test_b')], pagination: { page: 1, limit: 1, total: 2, hasMore: true } },
          }
        : {
            status: 200,
            body: { refunds: [refund('re_test_a')], pagination: { page: 2, limit: 1, total: 2, hasMore: false } },
          };
    });
    const sdk = client(baseUrl);
    expect((await sdk.refunds.create('ord_test_1', { amount: 100, reason: 'duplicate' })).id).toBe('re_test_new');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v0/orders/ord_test_1/refunds' });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ amount: 100, reason: 'duplicate' });
    expect(seen[0]?.headers['idempotency-key']).toEqual(expect.any(String));
    expect((await sdk.refunds.retrieve('re_test_one')).id).toBe('re_test_one');
    expect(seen[1]?.url).toBe('/v0/refunds/re_test_one');
    const ids: string[] = [];
    for await (const r of sdk.refunds.list('ord_test_1', { limit: 1 })) ids.push(r.id);
    expect(ids).toEqual(['re_test_b', 're_test_a']);
    expect(seen[2]?.url).toBe('/v0/orders/ord_test_1/refunds?limit=1&page=1');
    await sdk.testHelpers.refunds.create('ord_test_1', { outcome: 'pending' });
    await sdk.testHelpers.refunds.settle('re_test_new', { outcome: 'failed' });
    expect(seen.slice(-2).map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'POST /v0/test_helpers/orders/ord_test_1/refunds {"outcome":"pending"}',
      'POST /v0/test_helpers/refunds/re_test_new/settle {"outcome":"failed"}',
    ]);
  });

  it('When checkout settings are read and changed, then each call goes to /v0/checkout_settings and the settings are returned', async () => {
    const brand = { displayName: 'Shop', brandColor: '#112233', logoUrl: null, defaultLocale: 'fr' };
    const { baseUrl, seen } = await scripted(() => ({ status: 200, body: { checkoutSettings: brand } }));
    const sdk = client(baseUrl);
    expect(await sdk.checkoutSettings.retrieve()).toEqual(brand);
    expect(await sdk.checkoutSettings.update({ displayName: 'Shop', logoUrl: null })).toEqual(brand);
    expect(seen.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'GET /v0/checkout_settings ',
      'PATCH /v0/checkout_settings {"displayName":"Shop","logoUrl":null}',
    ]);
  });

  it('When the balance and its lines are read (D52), then each call goes to its path, filters and Dates are sent as ISO, and every page is walked', async () => {
    const line = (id: string) => ({ id, type: 'payment', amount: 100 });
    const balance = {
      currency: 'USD',
      payments: 300,
      refunds: 100,
      net: 200,
      count: 4,
      asOf: '2026-11-29T00:00:00.000Z',
    };
    const { baseUrl, seen } = await scripted((request) => {
      const url = new URL(request.url, 'http://x');
      if (url.pathname === '/v0/balance') return { status: 200, body: { balance } };
      if (url.pathname !== '/v0/balance_transactions')
        return { status: 200, body: { balanceTransaction: line(url.pathname.split('/').at(-1) ?? '') } };
      const page = Number(url.searchParams.get('page'));
      return {
        status: 200,
        body: {
          balanceTransactions: page === 1 ? [line('txn_test_b')] : [line('txn_test_a')],
          pagination: { page, limit: 1, hasMore: page === 1 },
        },
      };
    });
    const sdk = client(baseUrl);
    expect(await sdk.balance.retrieve()).toEqual(balance);
    expect((await sdk.balanceTransactions.retrieve('txn_test_x')).id).toBe('txn_test_x');
    const after = new Date('2026-11-01T00:00:00.000Z');
    const ids: string[] = [];
    for await (const l of sdk.balanceTransactions.list({
      type: 'refund',
      orderId: 'ord_test_1',
      createdAfter: after,
      limit: 1,
    }))
      ids.push(l.id);
    expect(ids).toEqual(['txn_test_b', 'txn_test_a']);
    const first = await sdk.balanceTransactions.list({ createdBefore: '2026-11-02T00:00:00.000Z' });
    expect(first.pagination.hasMore).toBe(true);
    expect(seen.map((r) => `${r.method} ${decodeURIComponent(r.url)}`)).toEqual([
      'GET /v0/balance',
      'GET /v0/balance_transactions/txn_test_x',
      'GET /v0/balance_transactions?type=refund&orderId=ord_test_1&limit=1&createdAfter=2026-11-01T00:00:00.000Z&page=1',
      'GET /v0/balance_transactions?type=refund&orderId=ord_test_1&limit=1&createdAfter=2026-11-01T00:00:00.000Z&page=2',
      'GET /v0/balance_transactions?createdBefore=2026-11-02T00:00:00.000Z&page=1',
    ]);
  });

  it('When a report is created, polled and downloaded (D52), then the create carries an Idempotency-Key, the file is read as text or as a stream, and a 503 on the file is retried', async () => {
    const report = (status: string) => ({ id: 'rpt_test_1', type: 'orders', status });
    const csv = 'id,externalId\r\nord_test_1,"\'=1+2"\r\n';
    let fileAnswers = 0;
    const { baseUrl, seen } = await scripted((request): Answer => {
      if (request.method === 'POST') return { status: 202, body: { report: report('pending') } };
      if (!request.url.endsWith('/file')) return { status: 200, body: { report: report('succeeded') } };
      fileAnswers += 1;
      if (fileAnswers === 1)
        return {
          status: 503,
          body: { code: 'SERVICE_UNAVAILABLE', message: 'later' },
          headers: { 'retry-after': '0' },
        };
      return { status: 200, raw: csv, headers: { 'content-type': 'text/csv; charset=utf-8' } };
    });
    const sdk = client(baseUrl);
    const window = { createdAfter: new Date('2026-11-01T00:00:00.000Z'), createdBefore: '2026-11-29T00:00:00.000Z' };
    expect((await sdk.reports.create({ type: 'orders', ...window }, { idempotencyKey: 'month-11' })).status).toBe(
      'pending',
    );
    expect(seen[0]?.headers['idempotency-key']).toBe('month-11');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      type: 'orders',
      createdAfter: '2026-11-01T00:00:00.000Z',
      createdBefore: '2026-11-29T00:00:00.000Z',
    });
    expect((await sdk.reports.retrieve('rpt_test_1')).status).toBe('succeeded');
    expect(await sdk.reports.downloadFile('rpt_test_1')).toBe(csv);
    const stream = await sdk.reports.streamFile('rpt_test_1');
    expect(await new Response(stream).text()).toBe(csv);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v0/reports',
      'GET /v0/reports/rpt_test_1',
      'GET /v0/reports/rpt_test_1/file',
      'GET /v0/reports/rpt_test_1/file',
      'GET /v0/reports/rpt_test_1/file',
    ]);
    expect(seen[2]?.headers.accept).toContain('text/csv');
  });

  it('When the file of a report not yet succeeded is asked for, then the typed REPORT_NOT_READY error is thrown, not retried', async () => {
    const { baseUrl, seen } = await scripted(() => ({
      status: 409,
      body: { code: 'REPORT_NOT_READY', message: 'pending', requestId: 'req_r' },
    }));
    const error = await client(baseUrl)
      .reports.downloadFile('rpt_test_1')
      .catch((err: unknown) => err);
    expect(isCheckoutApiError(error, 'REPORT_NOT_READY')).toBe(true);
    expect(error).toMatchObject({ status: 409, requestId: 'req_r' });
    expect(seen).toHaveLength(1);
  });

  it('When the key is not a secret key, then the constructor refuses it', () => {
    expect(() => new Checkout('pk_test_1')).toThrow(/secret key/);
  });
});

describe('events filtered by deliveries (D51)', () => {
  it('When iterated past page × limit = DELIVERY_SEARCH_MAX, then the SDK starts a new window after the last event and every event comes once, in order', async () => {
    expect(DELIVERY_SEARCH_MAX).toBe(CONTRACT_SEARCH_MAX);
    // 10,150 events, two per millisecond (a window restarting inside one millisecond reads some twice), newest first.
    const T = Date.parse('2026-11-25T00:00:00.000Z');
    const all = Array.from({ length: 10_150 }, (_, i) => ({
      id: `evt_test_${String(100_000 - i)}`,
      createdAt: new Date(T - Math.floor(i / 2)).toISOString(),
    }));
    const { baseUrl, seen } = await scripted(({ url }) => {
      const query = new URL(url, 'http://x').searchParams;
      const [page, limit] = [Number(query.get('page')), Number(query.get('limit'))];
      if (page * limit > CONTRACT_SEARCH_MAX) return { status: 400, body: { code: 'INVALID_REQUEST', message: 'x' } };
      const before = query.get('createdBefore');
      const matching = before === null ? all : all.filter((e) => Date.parse(e.createdAt) < Date.parse(before));
      const events = matching.slice((page - 1) * limit, page * limit);
      return {
        status: 200,
        body: { events, pagination: { page, limit, total: 0, hasMore: page * limit < matching.length } },
      };
    });
    const ids: string[] = [];
    for await (const event of client(baseUrl).events.list({ deliveryStatus: 'failed', limit: 100 })) ids.push(event.id);
    expect(ids).toEqual(all.map((e) => e.id));
    expect(seen.every((s) => !s.url.includes('page=101'))).toBe(true);
    expect(seen.filter((s) => s.url.includes('createdBefore=')).length).toBeGreaterThan(0);
  });
});

describe('webhooks.verify (D35)', () => {
  const secret = 'whsec_c2VjcmV0LWtleS1ieXRlcw==';
  const body = JSON.stringify({ id: 'evt_test_1', event: 'checkout.session.completed' });
  const now = new Date(1_700_000_000_000);
  const headers = webhookHeaders({
    secrets: [secret],
    eventId: 'evt_test_1',
    deliveryId: 'dlv_test_1',
    eventType: 'checkout.session.completed',
    timestamp: 1_700_000_000,
    body,
  });

  it('When body and headers are as delivered, then the event is returned', () => {
    expect(webhooks.verify(body, headers, secret, { now }).id).toBe('evt_test_1');
    expect(webhooks.verify(Buffer.from(body), new Headers(headers), secret, { now }).id).toBe('evt_test_1');
  });

  it('When the body was altered or the secret is another, then verification fails', () => {
    expect(() => webhooks.verify(body.replace('evt_test_1', 'evt_test_2'), headers, secret, { now })).toThrow(
      WebhookVerificationError,
    );
    expect(() => webhooks.verify(body, headers, 'whsec_b3RoZXI=', { now })).toThrow(/invalid signature/);
  });
});
