import { timingSafeEqual, createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { INTERNAL_API_HEADERS, INTERNAL_ROUTES, type InternalService, type Scope } from '@checkout/contracts';
import { DomainError } from '@checkout/errors';
import { jsonBody } from './body';

declare module 'koa' {
  interface DefaultState {
    scope?: Scope;
  }
}

const sha256 = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** Compares secrets in constant time regardless of their lengths (hashing first equalises the lengths). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/** The SHA-256 of an internal token, hex: what a callee's INTERNAL_CALLERS lists for that caller. */
export function internalTokenSha256(token: string): string {
  return sha256(token).toString('hex');
}

/** The callers a service accepts (its INTERNAL_CALLERS): each caller's name and the SHA-256 of its token. */
export interface AcceptedInternalCaller {
  caller: string;
  tokenSha256: string;
}

/** Which callers may call which internal routes of a service; the first rule whose method and path match decides. */
export interface InternalRouteRule {
  /** Upper-case methods; absent: any. */
  methods?: readonly string[];
  /** Matched against the lower-cased path: routing ignores case, so the check must too. */
  path: RegExp;
  callers: readonly string[];
}

/**
 * A service's rules, from libs/contracts' INTERNAL_ROUTES: each route lets exactly its callers in; a route with
 * fewer path parameters is matched first (`/orders/payments-per-hour` before `/orders/:orderId`). Then, per path, any
 * method for any caller of that path, so that a known caller's wrong method meets the router's 405, not a 403.
 * The processor's signed routes are not the token's to guard.
 */
export function internalRouteRules(callee: InternalService): InternalRouteRule[] {
  const routes = Object.values(INTERNAL_ROUTES)
    .filter((r) => r.callee === callee && !('processorSigned' in r))
    .map((r) => ({ ...r, params: r.path.split('/:').length - 1 }))
    .sort((a, b) => a.params - b.params);
  // Route paths are letters, digits, '-', '/' and ':name': nothing to escape.
  const pathRule = (path: string) => new RegExp(`^${path.toLowerCase().replace(/:\w+/g, '[^/]+')}/?$`);
  const byPath = new Map<string, Set<string>>();
  for (const r of routes) byPath.set(r.path, new Set([...(byPath.get(r.path) ?? []), ...r.callers]));
  return [
    ...routes.map((r) => ({ methods: [r.method], path: pathRule(r.path), callers: r.callers })),
    ...[...byPath].map(([path, callers]) => ({ path: pathRule(path), callers: [...callers] })),
  ];
}

declare module 'koa' {
  interface DefaultState {
    /** Which service or job made this internal call (its credential said so). */
    internalCaller?: string;
  }
}

/**
 * Internal services trust the organization and mode only from a caller they know, and each caller only on the
 * routes it needs (one shared token let any compromised pod act as any service, for any organization).
 * Every caller has a credential of its own; the callee holds only its SHA-256. A token is compared with every
 * accepted hash, so timing says nothing about which matched; two hashes for one caller are accepted while it
 * rotates its token. A path under /internal/ that no rule names is refused (fail closed), whatever its case.
 */
export function internalAuth(
  accepted: readonly AcceptedInternalCaller[],
  rules: readonly InternalRouteRule[],
): Middleware {
  if (accepted.length === 0) throw new Error('internalAuth needs at least one accepted caller');
  const hashes = accepted.map((a) => ({ caller: a.caller, hash: Buffer.from(a.tokenSha256, 'hex') }));
  return async (ctx, next) => {
    const given = ctx.get(INTERNAL_API_HEADERS.token);
    const givenHash = sha256(given);
    let caller: string | undefined;
    for (const candidate of hashes) {
      if (candidate.hash.length === givenHash.length && timingSafeEqual(givenHash, candidate.hash))
        caller = candidate.caller;
    }
    if (!given || caller === undefined) throw new DomainError('UNAUTHORIZED', 'Missing or invalid internal token.');
    const path = ctx.path.toLowerCase();
    const rule = rules.find((r) => (r.methods === undefined || r.methods.includes(ctx.method)) && r.path.test(path));
    if (!rule?.callers.includes(caller))
      throw new DomainError('FORBIDDEN', `${caller} may not call ${ctx.method} ${ctx.path}.`);
    ctx.state.internalCaller = caller;
    const organizationId = ctx.get(INTERNAL_API_HEADERS.organization);
    const mode = ctx.get(INTERNAL_API_HEADERS.mode);
    if (organizationId && (mode === 'test' || mode === 'live')) ctx.state.scope = { organizationId, mode };
    await next();
  };
}

/** Whether a request path is an internal one, as routing sees it (case-insensitively). */
export function isInternalPath(path: string, prefix = '/internal/'): boolean {
  return path.toLowerCase().startsWith(prefix);
}

/**
 * `middleware` on the tenant calls of other services under /internal only (a caller's credential, JSON bodies);
 * the processor's signed notifications at /internal/processor/ and browsers' requests pass it by. Case-insensitive,
 * as routing is: `/INTERNAL/orders` must not slip past the check and still reach the route.
 */
export function onTenantInternalPaths(middleware: Middleware): Middleware {
  return async (ctx, next) => {
    if (isInternalPath(ctx.path) && !isInternalPath(ctx.path, '/internal/processor/')) await middleware(ctx, next);
    else await next();
  };
}

/**
 * Other services' tenant calls under /internal (onTenantInternalPaths): their caller's credential checked against
 * `rules` (internalAuth), then their JSON body read.
 */
export function tenantInternalCalls(
  callers: readonly AcceptedInternalCaller[],
  rules: readonly InternalRouteRule[],
): Middleware {
  const auth = internalAuth(callers, rules);
  const json = jsonBody();
  return onTenantInternalPaths(async (ctx, next) => {
    await auth(ctx, async () => {
      await json(ctx, next);
    });
  });
}

export function requireScope(state: { scope?: Scope }): Scope {
  if (!state.scope) throw new DomainError('UNAUTHORIZED', 'This internal call needs an organization and mode.');
  return state.scope;
}
