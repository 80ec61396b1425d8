// Contracts between services, checked without running both: today's callers against what a release's
// callees answered. Each committed HTTP fixture (libs/contracts/fixtures/http, recorded by running the release:
// `npm run fixtures -- --contracts --from <release>`) is served by a stub of its callee, and the caller's own
// client code makes the call: the request it sends must be the recorded route with every recorded header, and it
// must read the recorded answer (a success parsed by its schema, an error as the recorded code). So a change to a
// caller that an older callee would not understand, or that no longer reads an older callee's answer, fails here.
// The other direction (today's callees against the recorded requests) is test-e2e/src/contracts.e2e.test.ts.
// Tracing is on, as in production: a release that traces records its callers' `traceparent`, which today's
// callers must then send too (a callee of that release continues the trace from it).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DomainError } from '@checkout/errors';
import { callInternal, InternalClient } from '@checkout/http';
import {
  ErrorBody,
  INTERNAL_API_HEADERS,
  INTERNAL_ROUTES,
  internalPath,
  REPORT_CSV_CONTENT_TYPE,
  type InternalRoute,
  type CreateRefundRequest,
  type CreateWebhookEndpointRequest,
  type UpdateWebhookEndpointRequest,
} from '@checkout/contracts';
import { readHttpFixtures, type HttpFixture } from '@checkout/testing';
import { collectSpans } from '@checkout/telemetry/testing';
import { createUpstreams, type Upstreams, PUBLIC_ROUTES } from '@checkout/gateway/testing';
import { OrdersClient as SessionsOrdersClient } from '@checkout/sessions/testing';
import { GatewaySettingsClient } from '@checkout/webhook-dispatcher/testing';
import { routeOf } from '../soak/versions';

const fixtures = readHttpFixtures();

/** The stub callee: answers the fixture's recorded answer and keeps the request it got. */
let server: Server;
let baseUrl: string;
let answering: HttpFixture | undefined;
let received: { method: string; path: string; headers: Record<string, string | string[] | undefined> } | undefined;
/** What the stub was last sent (read through a call: the stub's handler sets it while a test awaits). */
const lastRequest = () => received;

const tracing = collectSpans('contract-callers');

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers };
      const f = answering;
      if (!f) {
        res.writeHead(500).end();
        return;
      }
      const body = f.response.body === undefined ? '' : JSON.stringify(f.response.body);
      res.writeHead(f.response.status, f.response.headers).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await tracing.shutdown();
});

const scopeOf = (f: HttpFixture) => ({
  organizationId: f.request.headers['x-organization-id'] ?? 'org_000000000000000000000000',
  mode: (f.request.headers['x-mode'] ?? 'test') as 'test' | 'live',
});
const segments = (f: HttpFixture) => new URL(f.request.path, 'http://x').pathname.split('/');
const idAt = (f: HttpFixture, i: number) => decodeURIComponent(segments(f)[i] ?? '');
const query = (f: HttpFixture) => Object.fromEntries(new URL(f.request.path, 'http://x').searchParams);

/**
 * How each caller makes each call and reads its answer: the route, and the caller's code to run. A recorded
 * 4xx must come back as the caller's DomainError with the recorded code (or, for a forwarded call, as the body
 * the gateway passes on: an error envelope).
 */
interface Consumer {
  caller: HttpFixture['caller'];
  callee: HttpFixture['callee'];
  route: string;
  /** Only fixtures with this request header (the dashboard's reads send x-list-without-total). */
  when?: (f: HttpFixture) => boolean;
  call(f: HttpFixture, clients: Clients): Promise<unknown>;
}

interface Clients {
  upstreams: Upstreams;
  sessionsOrders: SessionsOrdersClient;
  settings: GatewaySettingsClient;
}

/**
 * A merchant's or operator's call the gateway forwards: its answer goes out as it is, so it must be what the public
 * API promises.
 */
const forwarded = (upstream: 'orders' | 'sessions' | 'dispatcher') => async (f: HttpFixture, c: Clients) => {
  const answer = await c.upstreams[upstream].forward({
    method: f.request.method as 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: f.request.path,
    scope: scopeOf(f),
    requestId: 'req_contract',
    body: f.request.body,
    headers: Object.fromEntries(
      Object.entries(f.request.headers).filter(([n]) => !['x-organization-id', 'x-mode', 'content-type'].includes(n)),
    ),
  });
  if (answer.status >= 400) return ErrorBody.parse(answer.body);
  // The admin API's forwards (locations, payment destinations) go to operators' tools, which read them loosely.
  const schema = PUBLIC_SCHEMAS.get(`${upstream}|${f.route}`);
  return schema ? schema.parse(answer.body) : answer.body;
};
/**
 * A route the gateway both forwards (the API) and reads itself (the dashboard, D47): each recorded success is read
 * both ways, the forward last, whose request the stub checks.
 */
const readAndForwarded =
  (upstream: 'orders' | 'sessions' | 'dispatcher', read: (f: HttpFixture, c: Clients) => Promise<unknown>) =>
  async (f: HttpFixture, c: Clients) => {
    if (f.response.status < 400) await read(f, c);
    return forwarded(upstream)(f, c);
  };
/** What the public API promises for each route the gateway forwards, by `<upstream>|<internal route>`. */
const PUBLIC_SCHEMAS = new Map<string, z.ZodType>(
  PUBLIC_ROUTES.flatMap((r) => {
    if (r.upstream === 'gateway') return [];
    const params = Object.fromEntries((r.path.match(/:(\w+)/g) ?? []).map((p) => [p.slice(1), 'ord_test_x']));
    return [[`${r.upstream}|${routeOf(r.method, r.upstreamPath(params))}`, r.success.schema] as const];
  }),
);
/**
 * D52's report file, streamed through the gateway as it comes: a success is text (its content type recorded), a
 * refusal the recorded error.
 */
const streamed = (upstream: 'orders') => async (f: HttpFixture, c: Clients) => {
  const answer = await c.upstreams[upstream].stream({
    method: 'GET',
    path: f.request.path,
    scope: scopeOf(f),
    requestId: 'req_contract',
  });
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) chunks.push(Buffer.from(chunk as Uint8Array));
  const text = Buffer.concat(chunks).toString('utf8');
  if (answer.status >= 400) return ErrorBody.parse(JSON.parse(text));
  expect(answer.headers['content-type']).toBe(REPORT_CSV_CONTENT_TYPE);
  return text;
};
const withoutTotal = (f: HttpFixture) => f.request.headers['x-list-without-total'] !== undefined;

const CONSUMERS: Consumer[] = [
  // D52: a report's file, streamed (its create and read are the table's calls, forwarded as JSON).
  { caller: 'gateway', callee: 'orders', route: 'GET /internal/reports/:id/file', call: streamed('orders') },
  // gateway → orders: the public and admin APIs forward; the dashboard reads (D47).
  {
    caller: 'gateway',
    callee: 'orders',
    route: 'GET /internal/orders',
    when: withoutTotal,
    call: (f, c) => c.upstreams.orders.listOrders(scopeOf(f), 'req', query(f)),
  },
  { caller: 'gateway', callee: 'orders', route: 'GET /internal/orders', call: forwarded('orders') },
  { caller: 'gateway', callee: 'orders', route: 'POST /internal/orders', call: forwarded('orders') },
  {
    caller: 'gateway',
    callee: 'orders',
    route: 'GET /internal/orders/:id',
    call: readAndForwarded('orders', (f, c) => c.upstreams.orders.getOrder(scopeOf(f), 'req', idAt(f, 3))),
  },
  { caller: 'gateway', callee: 'orders', route: 'PATCH /internal/orders/:id', call: forwarded('orders') },
  { caller: 'gateway', callee: 'orders', route: 'POST /internal/orders/:id/cancel', call: forwarded('orders') },
  {
    caller: 'gateway',
    callee: 'orders',
    route: 'GET /internal/orders/:id/payments',
    call: (f, c) => c.upstreams.orders.orderPayments(scopeOf(f), 'req', idAt(f, 3)),
  },
  {
    caller: 'gateway',
    callee: 'orders',
    route: 'GET /internal/orders/payments-per-hour',
    call: (f, c) => c.upstreams.orders.paymentsPerHour(scopeOf(f), 'req'),
  },
  // D48, D49: refunds, forwarded from the API; the dashboard's order page lists them and its Refund form makes one
  // (with the confirm page's one-time key as the idempotency record), whose order goes on to its session (D46).
  {
    caller: 'gateway',
    callee: 'orders',
    route: 'POST /internal/orders/:id/refunds',
    when: (f) => f.request.headers[INTERNAL_API_HEADERS.idempotencyRecord]?.startsWith('dashboard:') === true,
    call: (f, c) =>
      c.upstreams.orders.createRefund(
        scopeOf(f),
        'req',
        idAt(f, 3),
        f.request.body as CreateRefundRequest,
        (f.request.headers[INTERNAL_API_HEADERS.idempotencyRecord] as string).slice('dashboard:'.length),
      ),
  },
  { caller: 'gateway', callee: 'orders', route: 'POST /internal/orders/:id/refunds', call: forwarded('orders') },
  {
    caller: 'gateway',
    callee: 'orders',
    route: 'GET /internal/orders/:id/refunds',
    call: readAndForwarded('orders', (f, c) => c.upstreams.orders.orderRefunds(scopeOf(f), 'req', idAt(f, 3))),
  },
  ...[
    'GET /internal/refunds/:id',
    'POST /internal/test-helpers/orders/:id/refunds',
    'POST /internal/test-helpers/refunds/:id/settle',
  ].map((route): Consumer => ({ caller: 'gateway', callee: 'orders', route, call: forwarded('orders') })),
  ...[
    'GET /internal/admin/locations',
    'POST /internal/admin/locations',
    'GET /internal/admin/payment-destinations',
  ].map((route): Consumer => ({ caller: 'gateway', callee: 'orders', route, call: forwarded('orders') })),
  ...['POST /internal/admin/payment-destinations', 'PATCH /internal/admin/payment-destinations/:id'].map(
    (route): Consumer => ({ caller: 'gateway', callee: 'orders', route, call: forwarded('orders') }),
  ),
  // sessions → orders: sessions' orders client, every call it makes.
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'POST /internal/orders',
    call: (f, c) =>
      c.sessionsOrders.create(scopeOf(f), f.request.body, f.request.headers['idempotency-key'] ?? 'cs_test_x'),
  },
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'GET /internal/orders/:id',
    call: (f, c) => c.sessionsOrders.get(scopeOf(f), idAt(f, 3)),
  },
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'PATCH /internal/orders/:id',
    call: (f, c) => c.sessionsOrders.update(scopeOf(f), idAt(f, 3), f.request.body as never),
  },
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'POST /internal/orders/:id/cancel',
    call: (f, c) => c.sessionsOrders.cancel(scopeOf(f), idAt(f, 3)),
  },
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'POST /internal/orders/:id/close-payments',
    call: (f, c) => c.sessionsOrders.closePayments(scopeOf(f), idAt(f, 3)),
  },
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'POST /internal/orders/:id/payments',
    call: (f, c) => c.sessionsOrders.applyPayment(scopeOf(f), idAt(f, 3), f.request.body as never),
  },
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'GET /internal/admin/locations',
    call: (f, c) => c.sessionsOrders.listLocations(scopeOf(f)),
  },
  {
    caller: 'sessions',
    callee: 'orders',
    route: 'GET /internal/admin/payment-destinations',
    call: (f, c) => c.sessionsOrders.findPaymentDestination(scopeOf(f), query(f).destination ?? ''),
  },
  // gateway → sessions: the session API forwards, D46's order copy, the dashboard's reads.
  {
    caller: 'gateway',
    callee: 'sessions',
    route: 'GET /internal/sessions',
    call: (f, c) => c.upstreams.sessions.listSessions(scopeOf(f), 'req', query(f)),
  },
  { caller: 'gateway', callee: 'sessions', route: 'POST /internal/sessions', call: forwarded('sessions') },
  {
    caller: 'gateway',
    callee: 'sessions',
    route: 'GET /internal/sessions/:id',
    call: readAndForwarded('sessions', (f, c) => c.upstreams.sessions.getSession(scopeOf(f), 'req', idAt(f, 3))),
  },
  { caller: 'gateway', callee: 'sessions', route: 'PATCH /internal/sessions/:id', call: forwarded('sessions') },
  {
    caller: 'gateway',
    callee: 'sessions',
    route: 'PUT /internal/sessions/:id/order',
    call: (f, c) =>
      c.upstreams.sessions.copyOrder(
        scopeOf(f),
        'req',
        idAt(f, 3),
        f.request.body as Parameters<Upstreams['sessions']['copyOrder']>[3],
      ),
  },
  ...['POST /internal/test-helpers/sessions/:id/pay', 'POST /internal/test-helpers/sessions/:id/expire'].map(
    (route): Consumer => ({ caller: 'gateway', callee: 'sessions', route, call: forwarded('sessions') }),
  ),
  // gateway → webhook-dispatcher: the events API forwards, the dashboard reads and acts.
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/events',
    when: withoutTotal,
    call: (f, c) => c.upstreams.dispatcher.listEvents(scopeOf(f), 'req', query(f)),
  },
  { caller: 'gateway', callee: 'webhook-dispatcher', route: 'GET /internal/events', call: forwarded('dispatcher') },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/events/:id',
    call: readAndForwarded('dispatcher', (f, c) => c.upstreams.dispatcher.getEvent(scopeOf(f), 'req', idAt(f, 3))),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'POST /internal/events/:id/redeliver',
    call: async (f, c) => {
      await c.upstreams.dispatcher.redeliver(scopeOf(f), 'req', idAt(f, 3));
      return forwarded('dispatcher')(f, c);
    },
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'POST /internal/events/recover',
    call: async (f, c) => {
      const { since, endpointId } = f.request.body as { since: string; endpointId?: string };
      await c.upstreams.dispatcher.recover(scopeOf(f), 'req', since, endpointId);
      return forwarded('dispatcher')(f, c);
    },
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/events/failed-deliveries',
    call: (f, c) => c.upstreams.dispatcher.failedDeliveries(scopeOf(f), 'req'),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/events/delivery-stats',
    call: (f, c) => c.upstreams.dispatcher.deliveryStats(scopeOf(f), 'req'),
  },
  // D50: webhook endpoints and event types, forwarded from the API; the dashboard's endpoint pages read and write
  // the same routes with the gateway's client (each fixture is read both ways: the forward last, whose request the
  // stub checks).
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/event-types',
    call: forwarded('dispatcher'),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/webhook-endpoints',
    call: readAndForwarded('dispatcher', (f, c) => c.upstreams.dispatcher.listEndpoints(scopeOf(f), 'req')),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'POST /internal/webhook-endpoints',
    call: readAndForwarded('dispatcher', (f, c) =>
      c.upstreams.dispatcher.createEndpoint(scopeOf(f), 'req', f.request.body as CreateWebhookEndpointRequest),
    ),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/webhook-endpoints/:id',
    call: readAndForwarded('dispatcher', (f, c) => c.upstreams.dispatcher.getEndpoint(scopeOf(f), 'req', idAt(f, 3))),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'PATCH /internal/webhook-endpoints/:id',
    call: readAndForwarded('dispatcher', (f, c) =>
      c.upstreams.dispatcher.updateEndpoint(
        scopeOf(f),
        'req',
        idAt(f, 3),
        f.request.body as UpdateWebhookEndpointRequest,
      ),
    ),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'DELETE /internal/webhook-endpoints/:id',
    call: forwarded('dispatcher'),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'POST /internal/webhook-endpoints/:id/rotate-secret',
    call: readAndForwarded('dispatcher', (f, c) =>
      c.upstreams.dispatcher.rotateEndpointSecret(scopeOf(f), 'req', idAt(f, 3)),
    ),
  },
  {
    caller: 'gateway',
    callee: 'webhook-dispatcher',
    route: 'GET /internal/webhook-endpoints/:id/deliveries',
    call: (f, c) => c.upstreams.dispatcher.endpointDeliveries(scopeOf(f), 'req', idAt(f, 3), query(f).page),
  },
  // webhook-dispatcher → gateway: the signing secrets of an organization (D35).
  {
    caller: 'webhook-dispatcher',
    callee: 'gateway',
    route: 'GET /internal/checkout-settings',
    call: (f, c) => c.settings.secretsFor(scopeOf(f)),
  },
];

/**
 * A route of INTERNAL_ROUTES declared for the fixture's caller that CONSUMERS does not name: read as every typed call
 * reads it (libs/http's callInternal with the route's schemas), its parameters taken from the recorded path. So a new
 * call needs no entry here unless its caller sends or reads more than the route says (a header, a forward).
 */
function tableConsumer(f: HttpFixture): Consumer | undefined {
  const route = (Object.values(INTERNAL_ROUTES) as InternalRoute[]).find(
    (r) =>
      r.callee === f.callee &&
      (r.callers as readonly string[]).includes(f.caller) &&
      routeOf(r.method, internalPath(r, new Proxy({}, { get: () => 'x_test_x' }))) === f.route,
  );
  if (!route) return undefined;
  return {
    caller: f.caller,
    callee: f.callee,
    route: f.route,
    call: async (fixture) => {
      const names = route.path.split('/');
      const params = Object.fromEntries(
        names.flatMap((name, i) => (name.startsWith(':') ? [[name.slice(1), idAt(fixture, i)]] : [])),
      );
      const http = new InternalClient({
        service: fixture.callee,
        baseUrl,
        internalToken: 'contract-test-token-0123456789',
        timeoutMs: 2_000,
      });
      try {
        const headers = Object.fromEntries(
          Object.entries(fixture.request.headers).filter(([n]) => !['x-organization-id', 'x-mode'].includes(n)),
        ) as Record<string, string>;
        return (
          await callInternal(http, route, {
            scope: scopeOf(fixture),
            params,
            query: query(fixture),
            body: fixture.request.body,
            headers,
          })
        ).value;
      } finally {
        await http.close();
      }
    },
  };
}

const consumerOf = (f: HttpFixture) =>
  CONSUMERS.find(
    (c) => c.caller === f.caller && c.callee === f.callee && c.route === f.route && (c.when?.(f) ?? true),
  ) ?? tableConsumer(f);

describe("today's callers and what a release's callees answered them (libs/contracts/fixtures/http)", () => {
  it('has fixtures, each of a known caller and callee, and a way to call each route', () => {
    expect(fixtures.length).toBeGreaterThan(0);
    const unknown = fixtures.filter(({ fixture }) => !consumerOf(fixture)).map(({ dir, name }) => `${dir}/${name}`);
    expect(unknown, 'fixtures of a route no caller here makes: add it to CONSUMERS').toEqual([]);
  });

  it.each(fixtures.map(({ dir, name, fixture }) => [`${dir}/${name}`, fixture] as const))(
    '%s',
    async (_name, fixture) => {
      const consumer = consumerOf(fixture) as Consumer;
      const clients: Clients = {
        upstreams: createUpstreams({
          internalToken: 'contract-test-token-0123456789',
          timeoutMs: 2_000,
          ordersUrl: baseUrl,
          sessionsUrl: baseUrl,
          dispatcherUrl: baseUrl,
        }),
        sessionsOrders: new SessionsOrdersClient({
          baseUrl,
          internalToken: 'contract-test-token-0123456789',
          retries: 0,
        }),
        settings: new GatewaySettingsClient({ baseUrl, internalToken: 'contract-test-token-0123456789', cacheMs: 1 }),
      };
      answering = fixture;
      received = undefined;
      try {
        const outcome = await consumer.call(fixture, clients).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        );
        // The call today's caller made: the recorded route, with every header the release's caller sent.
        const sent = lastRequest();
        expect(sent, 'the caller made no call').toBeDefined();
        expect(routeOf(sent?.method ?? '', sent?.path ?? '')).toBe(fixture.route);
        for (const header of Object.keys(fixture.request.headers))
          expect(sent?.headers[header], `header ${header}`).toBeDefined();
        // Whatever the release recorded, the trace context goes with every internal call (W3C Trace Context).
        expect(sent?.headers.traceparent, 'traceparent').toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
        // A forwarded refusal comes back as its error envelope (parsed above); one the caller reads itself, as
        // a DomainError with the callee's code.
        if (!outcome.ok) {
          if (fixture.response.status < 400) throw outcome.error;
          expect(outcome.error).toBeInstanceOf(DomainError);
          expect((outcome.error as DomainError).code).toBe((fixture.response.body as { code: string }).code);
        }
      } finally {
        await Promise.all([
          clients.upstreams.orders.close(),
          clients.upstreams.sessions.close(),
          clients.upstreams.dispatcher.close(),
          clients.sessionsOrders.close(),
          clients.settings.close(),
        ]);
      }
    },
  );
});
