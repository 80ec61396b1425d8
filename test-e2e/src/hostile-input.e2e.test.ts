import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { JSON_DEPTH_MAX } from '@checkout/contracts';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput, buildSessionInput, uniqueId } from './support/factories';

// Hostile input through the gateway. Every case ends in a clear 4xx (or a refused webhook
// delivery), never a 5xx, a hang, a crash or a request that reaches an internal target. The dispatcher here
// allows only 127.0.0.2/32 (a "public" receiver that redirects); every other loopback address is internal (D33).
// Every service runs with short slow-client timeouts so that those cases finish quickly.

// Short enough for quick slow-client cases, long enough for ordinary requests on a busy machine: Node counts
// requestTimeout until the body has been read, which a handler does only after authenticating.
const HEADERS_TIMEOUT_MS = 4_000;
const REQUEST_TIMEOUT_MS = 8_000;
const TIMEOUTS = {
  HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
  HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
};

let stack: InProcessStack;
let test: Api;
let target: WebhookReceiver;
let redirector: WebhookReceiver;

beforeAll(async () => {
  target = await startWebhookReceiver({ host: '127.0.0.1' });
  redirector = await startWebhookReceiver({ host: '127.0.0.2' });
  stack = await startStack({
    webhookAllowedNetworks: '127.0.0.2/32',
    extraEnv: {
      gateway: { ...TIMEOUTS, RATE_LIMIT_PER_WINDOW: '100000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' },
      orders: TIMEOUTS,
      sessions: TIMEOUTS,
      dispatcher: TIMEOUTS,
    },
  });
  const org = await stack.admin.createOrganizationWithKeys('Hostile Org');
  test = new Api(stack.gatewayUrl, org.testKey);
});

afterAll(async () => {
  await stack?.stop();
  await target?.close();
  await redirector?.close();
});

function nested(depth: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

/** Raw bytes to the gateway, with the merchant's key, as a hostile client would send them. */
async function sendRaw(method: string, path: string, body: Buffer | string, headers: Record<string, string> = {}) {
  const response = await request(`${stack.gatewayUrl}${path}`, {
    method: method as 'POST',
    headers: { authorization: `Bearer ${test.key}`, 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await response.body.text();
  let parsed: { code?: string; message?: string } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // not JSON
  }
  return { status: response.statusCode, headers: response.headers, body: parsed };
}

async function createSession(overrides: Record<string, unknown> = {}): Promise<{ id: string }> {
  const created = await test.post(
    '/v0/checkout/sessions',
    buildSessionInput({ externalId: uniqueId('hostile'), ...overrides }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.session as { id: string };
}

describe('Large and deep bodies', () => {
  it('When a 2 MB body is sent, with or without Content-Length, then it is 413 PAYLOAD_TOO_LARGE (D7)', async () => {
    const big = JSON.stringify(buildOrderInput({ metadata: { k: 'x'.repeat(2 * 1024 * 1024) } }));
    const declared = await sendRaw('POST', '/v0/orders', big);
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe('PAYLOAD_TOO_LARGE');
    // Read to its end before the answer (up to 8 times the limit), so nothing unread stays on the connection (it
    // once got a stray 408 later) and nothing resets under the answer (a load balancer passed that reset on:
    // test-system/rollout/edge.rollout.ts); the connection stays usable.
    expect(declared.headers.connection).not.toBe('close');
    const chunks = Readable.from(
      (function* () {
        for (let sent = 0; sent < big.length; sent += 64 * 1024) yield Buffer.from(big.slice(sent, sent + 64 * 1024));
      })(),
    );
    const response = await request(`${stack.gatewayUrl}/v0/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${test.key}`, 'content-type': 'application/json' },
      body: chunks,
    }).catch((err: unknown) => ({ statusCode: 0, body: { text: async () => String(err) } }));
    // Without Content-Length too: the rest is read and dropped, then 413.
    expect(response.statusCode).toBe(413);
    await response.body.text();
  });

  it('When a body is over 8 times the limit, then it is refused at once (413, Connection: close) without being read', async () => {
    const huge = Buffer.alloc(9 * 1024 * 1024, 0x20);
    const answer: { status: number; headers: Record<string, unknown> } = await sendRaw(
      'POST',
      '/v0/orders',
      huge,
    ).catch(() => ({ status: 0, headers: {} }));
    // The server closes while the upload is still in flight: the client may see the 413 or a reset, never a 2xx or 5xx.
    expect([0, 413]).toContain(answer.status);
    if (answer.status === 413) expect(answer.headers.connection).toBe('close');
  });

  it('When JSON is nested 10,000 deep anywhere in a body, then it is 400 INVALID_REQUEST, not a stack overflow', async () => {
    const deepArray = `{"items": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const asArray = await sendRaw('POST', '/v0/orders', deepArray);
    expect(asArray.status).toBe(400);
    expect(asArray.body.code).toBe('INVALID_REQUEST');
    const session = await createSession();
    for (const depth of [1_000, 2_000, 10_000]) {
      // Built as text: JSON.stringify itself overflows the stack on values this deep.
      const raw = `{"sessionData":{"deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
      const patched = await sendRaw('PATCH', `/v0/checkout/sessions/${session.id}`, raw);
      expect(patched.status, `depth ${depth}`).toBe(400);
      expect(['INVALID_REQUEST', 'SESSION_UPDATE_FAILED']).toContain(patched.body.code);
    }
  });

  it(`When sessionData nests one level more than ${JSON_DEPTH_MAX}, then it is 400 SESSION_UPDATE_FAILED at sessionData`, async () => {
    const session = await createSession();
    // sessionData itself is level 1: {deep: nested(31)} is 32 levels, {deep: nested(32)} is 33.
    const tooDeep = await test.patch(`/v0/checkout/sessions/${session.id}`, {
      sessionData: { deep: nested(JSON_DEPTH_MAX) },
    });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.code).toBe('SESSION_UPDATE_FAILED');
    expect(tooDeep.body.details).toEqual([expect.objectContaining({ path: 'sessionData' })]);
  });

  it('When a paid session carries sessionData at the depth limit, then its checkout.session.completed event is recorded with it (the lost event)', async () => {
    const session = await createSession();
    const sessionData = { deep: nested(JSON_DEPTH_MAX - 1, 'leaf'), list: [[[['x']]]] };
    const patched = await test.patch(`/v0/checkout/sessions/${session.id}`, { sessionData });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const paid = await test.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {});
    expect(paid.body.session.status).toBe('completed');
    const event = await eventually(
      async () => {
        const listed = await test.get(`/v0/events?sessionId=${session.id}`);
        return listed.body.events?.find((e: { event: string }) => e.event === 'checkout.session.completed');
      },
      { deadlineMs: 30_000, description: 'the completed event of a session with deep sessionData' },
    );
    expect(event.session.sessionData).toEqual(sessionData);
  });

  it('When an order has 10,000 items, then it is 400 ORDER_CREATE_FAILED (D9: at most 100)', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ name: `item ${i}`, quantity: 1, unitPrice: 1 }));
    const response = await test.post('/v0/orders', { items });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ORDER_CREATE_FAILED');
    expect(response.body.details.some((d: { path: string }) => d.path === 'items')).toBe(true);
  });
});

describe('Keys, bytes and numbers', () => {
  it('When metadata uses the keys constructor, $where and a.b, then they are stored and read back as data (D13)', async () => {
    const metadata = { constructor: 'c', $where: 'sleep(1000)', 'a.b': 'dotted', 'x$y.z': 'both' };
    const created = await test.post('/v0/orders', buildOrderInput({ metadata }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = await test.get(`/v0/orders/${created.body.order.id}`);
    expect(read.body.order.metadata).toEqual(metadata);
  });

  it('When metadata or sessionData uses the key __proto__, then it is 400 with the key named', async () => {
    const order = await sendRaw(
      'POST',
      '/v0/orders',
      `{"items":[{"name":"a","quantity":1,"unitPrice":1}],"metadata":{"__proto__":"x"}}`,
    );
    expect(order.status).toBe(400);
    expect(order.body.code).toBe('ORDER_CREATE_FAILED');
    const session = await createSession();
    const patched = await sendRaw(
      'PATCH',
      `/v0/checkout/sessions/${session.id}`,
      '{"sessionData":{"a":{"__proto__":{"polluted":true}}}}',
    );
    expect(patched.status).toBe(400);
    expect(patched.body.code).toBe('SESSION_UPDATE_FAILED');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('When strings carry NUL bytes, then they are stored and read back exactly', async () => {
    const name = 'Latte\u0000with NUL';
    const metadata = { 'k\u0000ey': 'v\u0000alue' };
    const created = await test.post(
      '/v0/orders',
      buildOrderInput({ items: [{ name, quantity: 1, unitPrice: 100 }], metadata }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = await test.get(`/v0/orders/${created.body.order.id}`);
    expect(read.body.order.items[0].name).toBe(name);
    expect(read.body.order.metadata).toEqual(metadata);
  });

  it('When the body is not valid UTF-8, then it is 400 INVALID_REQUEST, not stored with U+FFFD', async () => {
    const prefix = Buffer.from('{"items":[{"name":"caf');
    const suffix = Buffer.from('","quantity":1,"unitPrice":100}]}');
    const response = await sendRaw(
      'POST',
      '/v0/orders',
      Buffer.concat([prefix, Buffer.from([0xc3, 0x28, 0xff]), suffix]),
    );
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_REQUEST');
    expect(response.body.message).toMatch(/UTF-8/);
  });

  it('When the body has a Content-Encoding the server does not decode, then it is 415 UNSUPPORTED_CONTENT_ENCODING', async () => {
    for (const coding of ['gzip', 'br', 'x-unknown']) {
      const response = await sendRaw('POST', '/v0/orders', JSON.stringify(buildOrderInput()), {
        'content-encoding': coding,
      });
      expect(response.status, coding).toBe(415);
      expect(response.body.code).toBe('UNSUPPORTED_CONTENT_ENCODING');
      expect(response.headers['accept-encoding']).toBe('identity');
    }
  });

  it('When numbers are 1e308, -0 or 9007199254740993, then out-of-range ones are 400 and -0 is plain 0', async () => {
    const item = (unitPrice: string, quantity = '1') =>
      `{"items":[{"name":"n","quantity":${quantity},"unitPrice":${unitPrice}}]}`;
    for (const raw of [item('1e308'), item('9007199254740993'), item('1', '1e308'), item('1', '-0')]) {
      const response = await sendRaw('POST', '/v0/orders', raw);
      expect(response.status, raw).toBe(400);
      expect(response.body.code).toBe('ORDER_CREATE_FAILED');
    }
    const zero = await sendRaw('POST', '/v0/orders', item('-0'));
    expect(zero.status).toBe(201);
    const order = (zero.body as { order: { items: Array<{ unitPrice: number }>; amounts: { total: number } } }).order;
    expect(Object.is(order.items[0]?.unitPrice, 0)).toBe(true);
    expect(order.amounts.total).toBe(0);
  });
});

describe('Headers and methods', () => {
  it('When a request carries 100 KB of headers, then it is 431 and the gateway keeps serving', async () => {
    const response = await request(`${stack.gatewayUrl}/v0/orders`, {
      headers: { authorization: `Bearer ${test.key}`, 'x-padding': 'p'.repeat(100 * 1024) },
    });
    await response.body.text();
    expect(response.statusCode).toBe(431);
    expect((await test.get('/v0/orders')).status).toBe(200);
  });

  it('When a known path is called with another method, then it is 405 METHOD_NOT_ALLOWED with an Allow header', async () => {
    const del = await test.send('DELETE', '/v0/orders');
    expect(del.status).toBe(405);
    expect(del.body.code).toBe('METHOD_NOT_ALLOWED');
    expect(String(del.headers.allow).split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
    const put = await test.send('PUT', '/v0/checkout/sessions/cs_test_abc');
    expect(put.status).toBe(405);
    expect(String(put.headers.allow).split(', ')).toEqual(expect.arrayContaining(['GET', 'PATCH']));
    // A method no router implements is still "not allowed here", never a 5xx.
    const propfind = await test.send('PROPFIND', '/v0/orders');
    expect(propfind.status).toBe(405);
    expect(propfind.headers.allow).toBeDefined();
    // Found by the full fuzz run (ST204): the recover route's path is not an event id for GET /v0/events/:eventId.
    const recover = await test.send('GET', '/v0/events/recover');
    expect(recover.status).toBe(405);
    expect(recover.headers.allow).toBe('POST, OPTIONS');
  });
});

describe('Slow clients (a byte at a time)', () => {
  /**
   * Opens a socket, writes `head`, then one more byte of `drip` every 200 ms; resolves with what the server said once
   * it closed.
   */
  function dribble(port: number, head: string, drip: string): Promise<{ response: string; closedBeforeDone: boolean }> {
    return new Promise((resolve) => {
      const socket: Socket = connect(port, '127.0.0.1');
      let response = '';
      let sent = 0;
      let timer: NodeJS.Timeout | undefined;
      socket.on('connect', () => {
        socket.write(head);
        timer = setInterval(() => {
          if (sent < drip.length && socket.writable) socket.write(drip[sent++] ?? '');
        }, 200);
      });
      socket.on('data', (chunk) => {
        response += chunk.toString();
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ response, closedBeforeDone: sent < drip.length });
      });
    });
  }

  const services = () => ({
    gateway: Number(stack.env.gateway.PORT),
    orders: Number(stack.env.orders.PORT),
    sessions: Number(stack.env.sessions.PORT),
    'webhook-dispatcher': Number(stack.env.dispatcher.PORT),
  });

  it('When a client sends its headers a byte at a time, then every service answers 408 and closes the connection', async () => {
    // Far more header bytes than the timeout lets through at this pace: only the server can end this.
    const drip = `X-Slow: ${'a'.repeat(1_200)}\r\n\r\n`;
    const results = await Promise.all(
      Object.entries(services()).map(
        async ([name, port]) => [name, await dribble(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', drip)] as const,
      ),
    );
    for (const [name, result] of results) {
      expect(result.closedBeforeDone, name).toBe(true);
      expect(result.response, name).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('When a client sends its body a byte at a time, then every service ends the request before the body is complete', async () => {
    const body = JSON.stringify(buildOrderInput({ metadata: { pad: 'x'.repeat(400) } }));
    const head = (path: string) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const results = await Promise.all(
      Object.entries(services()).map(
        async ([name, port]) =>
          [name, await dribble(port, head(name === 'gateway' ? '/v0/orders' : '/internal/orders'), body)] as const,
      ),
    );
    for (const [name, result] of results) {
      expect(result.closedBeforeDone, name).toBe(true);
      // Node answers 408 when it can; a connection closed without an answer is the other acceptable end.
      if (result.response !== '') expect(result.response, name).toMatch(/^HTTP\/1\.1 (408|4\d\d) /);
    }
    expect((await test.get('/v0/orders')).status).toBe(200);
  });
});

describe('Callback URLs that reach internal addresses (D33)', () => {
  it('When callback URLs spell loopback in every way, or redirect to it, then no delivery reaches the target and every attempt is refused or failed', async () => {
    const port = target.port;
    redirector.answer('/bounce', ANSWER.redirect(target.url('/from-redirect')));
    const spellings = [
      `http://2130706433:${port}/decimal`,
      `http://0x7f.1:${port}/hex`,
      `http://0177.0.0.1:${port}/octal`,
      `http://127.1:${port}/short`,
      `http://[::ffff:127.0.0.1]:${port}/mapped`,
      `http://[0:0:0:0:0:0:0:1]:${port}/v6-long`,
      `http://[::1]:${port}/v6`,
      `http://127.0.0.2@127.0.0.1:${port}/userinfo`,
      `http://user:pass@localhost:${port}/userinfo-name`,
      `http://localhost:${port}/dns-name`,
      `http://127.0.0.1.:${port}/trailing-dot`,
    ];
    const sessions: Array<{ id: string; url: string }> = [];
    for (const url of spellings) {
      const created = await test.post(
        '/v0/checkout/sessions',
        buildSessionInput({ externalId: uniqueId('ssrf'), callbackUrl: url }),
      );
      // Refusing such a URL up front would be fine too; accepting it must end in a refused delivery.
      expect([201, 400], url).toContain(created.status);
      if (created.status === 201) sessions.push({ id: created.body.session.id, url });
    }
    const viaRedirect = await createSession({ callbackUrl: redirector.url('/bounce') });
    sessions.push({ id: viaRedirect.id, url: redirector.url('/bounce') });
    for (const session of sessions) {
      const paid = await test.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {});
      expect(paid.status).toBe(200);
    }

    for (const session of sessions) {
      const attempts = await eventually(
        async () => {
          const listed = await test.get(`/v0/events?sessionId=${session.id}`);
          const event = listed.body.events?.[0];
          if (!event) return undefined;
          const detail = await test.get(`/v0/events/${event.id}`);
          const found = detail.body.deliveries?.[0]?.attempts as
            Array<{ statusCode: number | null; error: string | null }> | undefined;
          return found && found.length > 0 ? found : undefined;
        },
        { deadlineMs: 30_000, description: `a delivery attempt for ${session.url}` },
      );
      // Attempts are shown to the merchant, so they never carry the address a URL led to (a DNS answer, a
      // redirect's Location), only a coarse reason.
      expect(attempts[0]?.error, session.url).not.toMatch(
        /\b\d{1,3}(?:\.\d{1,3}){3}\b|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}/i,
      );
      if (session.url.endsWith('/bounce')) {
        expect(attempts[0]?.error, session.url).toMatch(/^redirect not followed \(HTTP 3\d\d\)$/);
      } else {
        expect(attempts[0]?.statusCode, session.url).toBeNull();
        expect(attempts[0]?.error, session.url).toBe(
          'the destination is not reachable: its name does not resolve, or its address is private, loopback or reserved',
        );
      }
    }
    expect(redirector.deliveries('/bounce').length).toBeGreaterThan(0);
    expect(target.deliveries()).toEqual([]);
    expect((await request(`${stack.gatewayUrl}/readyz`)).statusCode).toBe(200);
  });
});
