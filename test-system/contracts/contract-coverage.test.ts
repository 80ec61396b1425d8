// Every contract between services has a fixture: each internal route of libs/contracts' INTERNAL_ROUTES, for each
// of its callers, has an HTTP fixture, and each collection a service stores has a document fixture
// (libs/contracts/fixtures/{http,documents}; testkit/testing contract-fixtures.ts says how they are checked). The
// calls are the table's, and every internal path a service's code still writes by hand (the public route table's
// forwards, the pass-through) must be a route of the table; so a route added without recording it
// (`npm run fixtures -- --contracts`, contract-recording.ts beside this file) fails here.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INTERNAL_ROUTES, internalPath, type InternalRoute } from '@checkout/contracts';
import { isErrorCode } from '@checkout/errors';
import { MIGRATIONS_COLLECTION } from '@checkout/mongo';
import { readDocumentFixtures, readHttpFixtures, type HttpFixture } from '@checkout/testing';
import { PUBLIC_ROUTES } from '@checkout/gateway/testing';
import { COLLECTIONS as GATEWAY_COLLECTIONS } from '@checkout/gateway/indexes';
import { COLLECTIONS as ORDERS_COLLECTIONS } from '@checkout/orders/indexes';
import { COLLECTIONS as SESSIONS_COLLECTIONS } from '@checkout/sessions/indexes';
import { COLLECTIONS as DISPATCHER_COLLECTIONS } from '@checkout/webhook-dispatcher/indexes';
import { routeOf } from '../soak/versions';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

type Contract = `${HttpFixture['caller']} → ${HttpFixture['callee']}`;
/** `caller → callee METHOD /route/:id`, as the fixtures name a call. */
type Call = string;
const callOf = (contract: Contract, method: string, path: string): Call => `${contract} ${routeOf(method, path)}`;
/** The callers that are services of the platform (an operators' job records no fixture). */
const SERVICES: readonly string[] = ['gateway', 'sessions', 'webhook-dispatcher'] satisfies HttpFixture['caller'][];
/** A route's path with an id in place of each parameter, as routeOf reads one. */
const withIds = (route: InternalRoute) => internalPath(route, new Proxy({}, { get: () => 'x_test_x' }));

/** The table's calls, each (route, caller) that is a service of the platform. */
const tableCalls = new Map<Call, InternalRoute>(
  Object.values(INTERNAL_ROUTES).flatMap((route: InternalRoute) =>
    route.callers
      .filter((caller) => SERVICES.includes(caller))
      .map(
        (caller) => [callOf(`${caller} → ${route.callee}` as Contract, route.method, withIds(route)), route] as const,
      ),
  ),
);

const clientFiles = readdirSync(join(ROOT, 'services'))
  .flatMap((service) => {
    try {
      return readdirSync(join(ROOT, 'services', service, 'src', 'clients')).map(
        (f) => `services/${service}/src/clients/${f}`,
      );
    } catch {
      return [];
    }
  })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
/** Every product source file of a service, as one text. */
function sourcesOf(service: string): string {
  const dir = join(ROOT, 'services', service, 'src');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}
/** An internal path as code writes it: a string or template literal starting `/internal/`. */
const INTERNAL_LITERAL = /[`'](\/internal\/[^`'?]*)/g;

const CALLEE_OF_UPSTREAM = { orders: 'orders', sessions: 'sessions', dispatcher: 'webhook-dispatcher' } as const;
/** The public API's forwards (the gateway's route table), every route with an owner other than the gateway. */
const publicCalls: Call[] = PUBLIC_ROUTES.flatMap((r) => {
  if (r.upstream === 'gateway') return [];
  const params = Object.fromEntries((r.path.match(/:(\w+)/g) ?? []).map((p) => [p.slice(1), 'x_test_x']));
  return [callOf(`gateway → ${CALLEE_OF_UPSTREAM[r.upstream]}`, r.method, r.upstreamPath(params))];
});

/** The requests the gateway passes through unchanged (checkout-page.routes.ts): paths it names, with their owner. */
const passedThrough = [
  ...source('services/gateway/src/http/checkout-page.routes.ts').matchAll(/[`'](\/internal\/processor\/[^`'?]*)/g),
].map((m) => (m[1]?.includes('refund') ? `gateway → orders POST ${m[1]}` : `gateway → sessions POST ${m[1]}`));

/**
 * Internal calls that cannot have an HTTP fixture, each with why. Every entry must still be a call the code makes
 * (the last test), so the list cannot outlive what it exempts.
 */
const EXEMPT_CALLS: Record<Call, string> = {
  // Sessions reads an order only when orders refused a payment (ORDER_NOT_PAYABLE) that the session's copy of the
  // order still allowed: a race with a cancel or another payment (D25, D46), which a recorded journey cannot make
  // happen on purpose. The request is the gateway's `GET /internal/orders/:id` (fixtures above, callee side); the
  // race is services/sessions/test/component/payments.test.ts ("pay and cancel race").
  'sessions → orders GET /internal/orders/:id': 'only after a lost race with a cancel or another payment',
  // Sessions cancels an order only to compensate for a session it made the order for and then failed to store
  // (a database fault, without an Idempotency-Key): no journey causes it. The request is the gateway's
  // `POST /internal/orders/:id/cancel` (no body; fixtures above, callee side).
  'sessions → orders POST /internal/orders/:id/cancel': 'only to compensate for a session that failed to store',
};

/**
 * Collections that cannot have a document fixture, each with why (the recording skips the same ones:
 * NOT_CONTRACTS in contract-recording.ts).
 */
const EXEMPT_COLLECTIONS: Record<string, string> = {
  // libs/mongo's leases: a lock held for seconds by one replica and taken over once it lapses; no shape of it
  // outlives the replicas of one version long enough for another version to read it.
  leases: 'short-lived locks (libs/mongo lease.ts)',
  // D52's queue of lines not counted yet: an entry lives until the next count (milliseconds, at most the sweep's
  // interval), so a recorded journey ends with the queue empty. Its shape is a line's fields (queueEntryOf in
  // services/orders/src/store/balance.store.ts); the soak's mixed-version rollout counts across versions.
  balance_queue: 'entries live until the next count: empty once a journey is over',
};

const httpFixtures = readHttpFixtures().map((f) => f.fixture);
const recorded = new Set(httpFixtures.map((f) => `${f.caller} → ${f.callee} ${f.route}`));

/**
 * The processor's signed notifications (payments D27 to sessions, refunds D48 to orders) are passed through byte for
 * byte by the gateway: their writer is the processor, not a service of the platform, and their signature covers the
 * raw body, so the recording proxy forwards them unrecorded. Guarded by test-e2e/src/sessions.e2e.test.ts and the
 * refund notification tests of orders; the soak sends them across versions.
 */
const processorSigned = new Set([...tableCalls].filter(([, route]) => route.processorSigned).map(([call]) => call));

describe('every internal call has an HTTP contract fixture (libs/contracts/fixtures/http)', () => {
  it('reads the table, and every internal path code writes by hand is a route of it for that caller', () => {
    // What the test derives must include the calls everyone knows are made (the derivation did not go blind).
    expect([...tableCalls.keys()]).toEqual(
      expect.arrayContaining([
        'gateway → orders GET /internal/orders/:id',
        'sessions → orders POST /internal/orders/:id/payments',
        'gateway → sessions PUT /internal/sessions/:id/order',
        'gateway → webhook-dispatcher GET /internal/webhook-endpoints/:id/deliveries',
        'webhook-dispatcher → gateway GET /internal/checkout-settings',
        'gateway → orders POST /internal/admin/locations',
      ]),
    );
    const outside = [...publicCalls, ...passedThrough].filter((call) => !tableCalls.has(call));
    expect(outside, 'a forward or pass-through of a route INTERNAL_ROUTES does not declare for its caller').toEqual([]);
    // The gateway's, orders' and sessions' clients build every path from the table (the dispatcher's client of the
    // gateway still writes its one path; it is the table's checkoutSettings route).
    const written = clientFiles
      .filter((file) => !file.startsWith('services/webhook-dispatcher/'))
      .filter((file) => [...source(file).matchAll(INTERNAL_LITERAL)].length > 0);
    expect(written, 'a client writing an /internal/ path: call a route of INTERNAL_ROUTES').toEqual([]);
  });

  it('declares only calls the code makes: a typed call of the route, a forward or a pass-through', () => {
    const made = new Set([...publicCalls, ...passedThrough]);
    for (const [call, route] of tableCalls) {
      const caller = call.split(' → ')[0] as string;
      const name = Object.entries(INTERNAL_ROUTES).find(([, r]) => r === route)?.[0] as string;
      const text = sourcesOf(caller);
      if (new RegExp(`\\b(R|INTERNAL_ROUTES)\\.${name}\\b`).test(text) || text.includes(`'${route.path}'`))
        made.add(call);
    }
    expect([...tableCalls.keys()].filter((call) => !made.has(call))).toEqual([]);
  });

  it('has a fixture of every call, or an exemption that says why not', () => {
    const missing = [...tableCalls.keys()]
      .filter((c) => !recorded.has(c) && !(c in EXEMPT_CALLS) && !processorSigned.has(c))
      .sort();
    expect(
      missing,
      'record them: npm run fixtures -- --contracts (extend the journey in contract-recording.ts)',
    ).toEqual([]);
  });

  it('exempts only calls the table declares, and none that has a fixture', () => {
    for (const call of [...Object.keys(EXEMPT_CALLS), ...processorSigned]) {
      expect(tableCalls.has(call), `${call}: exempt but no longer declared`).toBe(true);
      expect(recorded.has(call), `${call}: exempt but has a fixture`).toBe(false);
    }
  });

  it('records only declared calls, each refusal with a code its route maps', () => {
    for (const f of httpFixtures) {
      const route = tableCalls.get(`${f.caller} → ${f.callee} ${f.route}`);
      expect(route, `${f.caller} → ${f.callee} ${f.route}: recorded but not in INTERNAL_ROUTES`).toBeDefined();
      const code = (f.response.body as { code?: string } | undefined)?.code;
      if (f.response.status >= 400 && f.response.status < 500)
        expect(route?.errors ?? [], `${f.route} answered ${code}`).toContain(code);
    }
    for (const route of Object.values(INTERNAL_ROUTES) as InternalRoute[])
      for (const code of route.errors ?? []) expect(isErrorCode(code), `${route.path}: ${code}`).toBe(true);
  });
});

describe('every stored collection has a document contract fixture (libs/contracts/fixtures/documents)', () => {
  const fixtures = new Set(readDocumentFixtures().map((f) => f.dir));
  const stored: Record<HttpFixture['callee'], readonly string[]> = {
    gateway: Object.values(GATEWAY_COLLECTIONS),
    orders: [...Object.values(ORDERS_COLLECTIONS), MIGRATIONS_COLLECTION],
    sessions: Object.values(SESSIONS_COLLECTIONS),
    'webhook-dispatcher': Object.values(DISPATCHER_COLLECTIONS),
  };

  it('has a fixture of each, or an exemption that says why not', () => {
    const missing = Object.entries(stored)
      .flatMap(([service, collections]) => collections.map((c) => `${service}.${c}`))
      .filter((dir) => !fixtures.has(dir) && !((dir.split('.')[1] as string) in EXEMPT_COLLECTIONS));
    expect(missing, 'record them: npm run fixtures -- --contracts').toEqual([]);
  });

  it('exempts no collection that has a fixture', () => {
    expect([...fixtures].filter((dir) => (dir.split('.')[1] as string) in EXEMPT_COLLECTIONS)).toEqual([]);
  });
});
