import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { DomainError } from '@checkout/errors';
import {
  internalAuth,
  internalRouteRules,
  internalTokenSha256,
  isInternalPath,
  onTenantInternalPaths,
  type InternalRouteRule,
} from './internal-auth';

// Every caller has a credential of its own, the callee holds only its SHA-256, and each internal
// route admits only the callers it names. Two hashes for one caller are accepted while it rotates its token.

function call(
  middleware: ReturnType<typeof internalAuth>,
  request: { method?: string; path?: string; headers: Record<string, string> },
) {
  const ctx = {
    method: request.method ?? 'GET',
    path: request.path ?? '/internal/orders',
    get: (name: string) => request.headers[name] ?? '',
    state: {} as Record<string, unknown>,
  };
  let reached = false;
  const run = middleware(ctx as unknown as Context, async () => {
    reached = true;
  });
  return { run, ctx, reached: () => reached };
}

const scopeHeaders = { 'x-organization-id': 'org_1', 'x-mode': 'test' };
const TOKENS = {
  gatewayOld: 'gw-old-3b9T8xQ2mLp7Vz4KwR1n',
  gatewayNew: 'gw-new-9fJ2kL8pQw3Zx7Vb5Nm1',
  sessions: 'se-7Hq2Lm9Xc4Vb8Nz1Kp6W',
  dispatcher: 'di-5Gt8Yh2Jk9Lm4Nb7Vc1X',
};
const rules: InternalRouteRule[] = [
  { methods: ['POST'], path: /^\/internal\/orders\/[^/]+\/payments$/, callers: ['sessions'] },
  { path: /^\/internal\/orders(\/.*)?$/, callers: ['gateway', 'sessions'] },
];
const auth = internalAuth(
  [
    { caller: 'gateway', tokenSha256: internalTokenSha256(TOKENS.gatewayOld) },
    { caller: 'gateway', tokenSha256: internalTokenSha256(TOKENS.gatewayNew) },
    { caller: 'sessions', tokenSha256: internalTokenSha256(TOKENS.sessions) },
    { caller: 'webhook-dispatcher', tokenSha256: internalTokenSha256(TOKENS.dispatcher) },
  ],
  rules,
);
const isCode = (code: string) => (err: unknown) => err instanceof DomainError && err.code === code;

describe('internalAuth', () => {
  it("When either token of a caller's rotation is given, then the call goes on with its scope and its caller", async () => {
    for (const token of [TOKENS.gatewayOld, TOKENS.gatewayNew]) {
      const { run, ctx, reached } = call(auth, { headers: { 'x-internal-token': token, ...scopeHeaders } });
      await run;
      expect(reached()).toBe(true);
      expect(ctx.state.scope).toEqual({ organizationId: 'org_1', mode: 'test' });
      expect(ctx.state.internalCaller).toBe('gateway');
    }
  });

  it.each([
    ['a wrong token', { 'x-internal-token': `${TOKENS.gatewayNew}x` }],
    ['no token', {}],
  ])('When %s is given, then 401 UNAUTHORIZED and the call stops', async (_label, headers) => {
    const { run, reached } = call(auth, { headers: { ...headers, ...scopeHeaders } });
    await expect(run).rejects.toSatisfy(isCode('UNAUTHORIZED'));
    expect(reached()).toBe(false);
  });

  it('When a known caller calls a route its rule does not name, then 403 FORBIDDEN: the gateway may not apply a payment', async () => {
    const { run, reached } = call(auth, {
      method: 'POST',
      path: '/internal/orders/ord_test_1/payments',
      headers: { 'x-internal-token': TOKENS.gatewayNew, ...scopeHeaders },
    });
    await expect(run).rejects.toSatisfy(isCode('FORBIDDEN'));
    expect(reached()).toBe(false);
    const bySessions = call(auth, {
      method: 'POST',
      path: '/internal/orders/ord_test_1/payments',
      headers: { 'x-internal-token': TOKENS.sessions, ...scopeHeaders },
    });
    await bySessions.run;
    expect(bySessions.reached()).toBe(true);
  });

  it('When a caller that no rule names (the dispatcher) calls orders, then 403 FORBIDDEN', async () => {
    const { run } = call(auth, { headers: { 'x-internal-token': TOKENS.dispatcher, ...scopeHeaders } });
    await expect(run).rejects.toSatisfy(isCode('FORBIDDEN'));
  });

  it('When the path differs only in case, then the same rule decides (routing ignores case)', async () => {
    const { run, reached } = call(auth, {
      method: 'POST',
      path: '/INTERNAL/Orders/ord_test_1/PAYMENTS',
      headers: { 'x-internal-token': TOKENS.gatewayNew, ...scopeHeaders },
    });
    await expect(run).rejects.toSatisfy(isCode('FORBIDDEN'));
    expect(reached()).toBe(false);
  });

  it('When an /internal path matches no rule, then it is refused (fail closed)', async () => {
    const { run } = call(auth, {
      path: '/internal/unlisted',
      headers: { 'x-internal-token': TOKENS.gatewayNew, ...scopeHeaders },
    });
    await expect(run).rejects.toSatisfy(isCode('FORBIDDEN'));
  });

  it('isInternalPath ignores case, as routing does', () => {
    expect(isInternalPath('/INTERNAL/sessions/x')).toBe(true);
    expect(isInternalPath('/Internal/processor/notifications', '/internal/processor/')).toBe(true);
    expect(isInternalPath('/checkout/cs_test_1')).toBe(false);
  });

  it('onTenantInternalPaths runs its middleware on tenant calls only, whatever their case', async () => {
    const seen: string[] = [];
    const guarded = onTenantInternalPaths(async (ctx, next) => {
      seen.push(ctx.path);
      await next();
    });
    for (const path of ['/INTERNAL/orders', '/internal/processor/refunds', '/checkout/cs_test_1', '/internal/sessions'])
      await guarded({ path } as Parameters<typeof guarded>[0], async () => {});
    expect(seen).toEqual(['/INTERNAL/orders', '/internal/sessions']);
  });
});

describe("internalRouteRules: a callee's rules from libs/contracts' INTERNAL_ROUTES", () => {
  const orders = internalAuth(
    [
      { caller: 'gateway', tokenSha256: internalTokenSha256(TOKENS.gatewayNew) },
      { caller: 'sessions', tokenSha256: internalTokenSha256(TOKENS.sessions) },
    ],
    internalRouteRules('orders'),
  );
  const as = (token: string, method: string, path: string) =>
    call(orders, { method, path, headers: { 'x-internal-token': token, ...scopeHeaders } });

  const S = TOKENS.sessions;
  const G = TOKENS.gatewayNew;
  it.each([
    ['sessions', 'POST /internal/orders/ord_1/payments', 'goes on', S],
    ['sessions', 'GET /INTERNAL/Orders/ord_1/', 'goes on', S],
    ['the gateway', 'GET /internal/orders/payments-per-hour', 'goes on', G],
    // A known caller of the path with a method no route has: the router answers it (405), not the auth.
    ['the gateway', 'DELETE /internal/orders/ord_1', 'goes on', G],
    // A literal segment is matched before a parameter: the chart is not an order id sessions may read.
    ['sessions', 'GET /internal/orders/payments-per-hour', 'FORBIDDEN', S],
    ['sessions', 'GET /internal/orders', 'FORBIDDEN', S],
    ['the gateway', 'POST /internal/orders/ord_1/payments', 'FORBIDDEN', G],
    ['the gateway', 'GET /internal/nothing-declared', 'FORBIDDEN', G],
  ])('When %s calls %s, then the call %s', async (_who, request, outcome, token) => {
    const [method, path] = request.split(' ') as [string, string];
    const { run, reached } = as(token, method, path);
    if (outcome === 'FORBIDDEN') await expect(run).rejects.toSatisfy(isCode('FORBIDDEN'));
    else await run;
    expect(reached()).toBe(outcome !== 'FORBIDDEN');
  });

  it("leaves the processor's signed routes to their signature", () => {
    const paths = internalRouteRules('orders').map((r) => r.path.source);
    expect(paths.some((p) => p.includes('processor'))).toBe(false);
  });
});
