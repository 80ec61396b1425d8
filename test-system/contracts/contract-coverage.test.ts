// Every contract between services has a fixture: each internal route a service's code calls another service
// with (its clients, the admin API's forwards, the public route table) has an HTTP fixture, and each collection a
// service stores has a document fixture (libs/contracts/fixtures/{http,documents}; testkit/testing
// contract-fixtures.ts says how they are checked). Both lists are read from the code, so a route or a collection
// added without recording it (`npm run fixtures -- --contracts`, contract-recording.ts beside this file) fails here.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
const callOf = (contract: Contract, method: string, path: string): Call =>
  `${contract} ${routeOf(method, withIds(path))}`;

/** A template literal's path with an id in place of each `${…}` (braces inside one counted: `${f({ a })}`). */
function withIds(path: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < path.length; i += 1) {
    const c = path[i] as string;
    if (depth === 0 && c === '$' && path[i + 1] === '{') {
      out += 'x_test_x';
      depth = 1;
      i += 1;
    } else if (depth > 0) depth += c === '{' ? 1 : c === '}' ? -1 : 0;
    else out += c;
  }
  return out;
}

/** Whom each client module calls: every file in services/<service>/src/clients must be here. */
const CLIENTS: Record<string, Contract | 'not a service'> = {
  'services/gateway/src/clients/internal-api.ts': 'not a service',
  'services/gateway/src/clients/upstreams.ts': 'not a service',
  'services/gateway/src/clients/orders.client.ts': 'gateway → orders',
  'services/gateway/src/clients/sessions.client.ts': 'gateway → sessions',
  'services/gateway/src/clients/webhook-dispatcher.client.ts': 'gateway → webhook-dispatcher',
  'services/sessions/src/clients/orders.client.ts': 'sessions → orders',
  'services/webhook-dispatcher/src/clients/gateway.client.ts': 'webhook-dispatcher → gateway',
  // Merchants' webhook URLs (D33), not a service of the platform.
  'services/webhook-dispatcher/src/clients/webhook-endpoints.client.ts': 'not a service',
};

/** An internal path as code writes it: a string or template literal starting `/internal/`. */
const INTERNAL_LITERAL = /[`'](\/internal\/[^`'?]*)/g;
/**
 * A call with its method, in the forms the clients use: `method: 'GET', path: …` (libs/http InternalClient's
 * options), `this.call(scope, 'GET', …)` (sessions' orders client) and the admin API's `forwardToOrders('GET', …)`.
 */
const CALL =
  /(?:method:\s*'([A-Z]+)',\s*path:\s*|this\.call\(\s*scope,\s*'([A-Z]+)',\s*|forwardToOrders\(\s*'([A-Z]+)',[^`']*)[`'](\/internal\/[^`'?]*)/g;

/** The calls a file makes, and how many internal paths it writes (each must be one of its calls). */
function callsIn(file: string, contract: Contract): { calls: Call[]; literals: number } {
  const text = source(file);
  const calls = [...text.matchAll(CALL)].map((m) => callOf(contract, (m[1] ?? m[2] ?? m[3]) as string, m[4] as string));
  return { calls, literals: [...text.matchAll(INTERNAL_LITERAL)].length };
}

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

const CALLEE_OF_UPSTREAM = { orders: 'orders', sessions: 'sessions', dispatcher: 'webhook-dispatcher' } as const;
/** The public API's forwards (the gateway's route table), every route with an owner other than the gateway. */
const publicCalls: Call[] = PUBLIC_ROUTES.flatMap((r) => {
  if (r.upstream === 'gateway') return [];
  const params = Object.fromEntries((r.path.match(/:(\w+)/g) ?? []).map((p) => [p.slice(1), 'x_test_x']));
  return [callOf(`gateway → ${CALLEE_OF_UPSTREAM[r.upstream]}`, r.method, r.upstreamPath(params))];
});

/** The requests the gateway passes through unchanged (checkout-page.routes.ts): paths it names, with their owner. */
const passThroughSource = source('services/gateway/src/http/checkout-page.routes.ts');

/**
 * Internal calls that cannot have an HTTP fixture, each with why. Every entry must still be a call the code makes
 * (the last test), so the list cannot outlive what it exempts.
 */
const EXEMPT_CALLS: Record<Call, string> = {
  // The processor's signed notifications (payments D27 to sessions, refunds D48 to orders) are passed through
  // byte for byte by the gateway: their writer is the processor, not a service of the platform, and their
  // signature covers the raw body, so the recording proxy forwards them unrecorded. Guarded by
  // test-e2e/src/sessions.e2e.test.ts and the refund notification tests of orders; the soak sends them across
  // versions.
  'gateway → sessions POST /internal/processor/notifications':
    'a processor notification passed through unchanged: the processor writes it',
  'gateway → orders POST /internal/processor/refund-notifications':
    'a processor refund notification passed through unchanged: the processor writes it',
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
};

const httpFixtures = readHttpFixtures().map((f) => f.fixture);
const recorded = new Set(httpFixtures.map((f) => `${f.caller} → ${f.callee} ${f.route}`));

describe('every internal call has an HTTP contract fixture (libs/contracts/fixtures/http)', () => {
  const fromClients = clientFiles.map((file) => {
    const contract = CLIENTS[file];
    return { file, contract, ...(contract && contract !== 'not a service' ? callsIn(file, contract) : {}) };
  });
  const adminForwards = callsIn('services/gateway/src/http/admin.routes.ts', 'gateway → orders');
  const passedThrough = [...passThroughSource.matchAll(/[`'](\/internal\/processor\/[^`'?]*)/g)].map((m) =>
    m[1]?.includes('refund') ? `gateway → orders POST ${m[1]}` : `gateway → sessions POST ${m[1]}`,
  );
  const calls = new Set<Call>([
    ...fromClients.flatMap((c) => c.calls ?? []),
    ...adminForwards.calls,
    ...publicCalls,
    ...passedThrough,
  ]);

  it('knows whom every client module calls, and reads every internal path each one writes', () => {
    expect(
      fromClients.filter((c) => c.contract === undefined).map((c) => c.file),
      'a client module not in CLIENTS: say which service it calls',
    ).toEqual([]);
    for (const c of [...fromClients, { file: 'admin.routes.ts', ...adminForwards }])
      expect(c.calls?.length ?? 0, `${c.file}: an /internal/ path written in a form CALL does not read`).toBe(
        c.literals ?? 0,
      );
    // What the test derives must include the calls everyone knows are made (the derivation did not go blind).
    expect([...calls]).toEqual(
      expect.arrayContaining([
        'gateway → orders GET /internal/orders/:id',
        'sessions → orders POST /internal/orders/:id/payments',
        'gateway → sessions PUT /internal/sessions/:id/order',
        'gateway → webhook-dispatcher GET /internal/webhook-endpoints/:id/deliveries',
        'webhook-dispatcher → gateway GET /internal/checkout-settings',
        'gateway → orders POST /internal/admin/locations',
      ]),
    );
  });

  it('has a fixture of every call, or an exemption that says why not', () => {
    const missing = [...calls].filter((c) => !recorded.has(c) && !(c in EXEMPT_CALLS)).sort();
    expect(
      missing,
      'record them: npm run fixtures -- --contracts (extend the journey in contract-recording.ts)',
    ).toEqual([]);
  });

  it('exempts only calls the code makes, and none that has a fixture', () => {
    for (const call of Object.keys(EXEMPT_CALLS)) {
      expect(calls.has(call), `${call}: exempt but no longer called`).toBe(true);
      expect(recorded.has(call), `${call}: exempt but has a fixture`).toBe(false);
    }
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
