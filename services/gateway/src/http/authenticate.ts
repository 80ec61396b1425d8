import type { Mode, Scope } from '@checkout/contracts';
import type { Context, Middleware } from 'koa';
import { LRUCache } from 'lru-cache';
import { DomainError } from '@checkout/errors';
import { annotateActiveSpan } from '@checkout/telemetry';
import { keyMatches, parseAuthorization } from '../domain/api-keys';
import type { KeyWithOrganization, Organizations } from '../domain/organizations';
import type { OrganizationDocument } from '../store/organization.document';
import type { RateLimiter } from '../domain/rate-limit';
import type { GatewayMetrics } from '../metrics';

declare module 'koa' {
  interface DefaultState {
    apiKeyId?: string;
    /** The key's lookup id: what the key cache is keyed by (D47: a dashboard session re-checks its key by it). */
    apiKeyLookupId?: string;
    organization?: OrganizationDocument;
  }
}

/** D5: one message for every key that does not work, so an answer never tells whether a key id exists. */
const INVALID_KEY_MESSAGE = 'The API key is not valid.';

export interface KeyCache {
  /** A key this replica has just revoked: it stops working here at once (on other replicas within AUTH_CACHE_MS). */
  revoked(lookupId: string): void;
  /**
   * D47: the organization of the key with this lookup id while the key is active, else null; through the same
   * cache (and the same AUTH_CACHE_MS bound on revocation elsewhere) as API requests.
   */
  activeOrganization(lookupId: string): Promise<OrganizationDocument | null>;
}

/**
 * D5: resolves the organization and mode from the secret key and puts them on ctx.state.scope, the only
 * place handlers read them from. A short cache keeps the database off the hot path (lru-cache: one load per key
 * id at a time, however many requests wait for it); it also bounds how long a key revoked on another replica
 * keeps working (AUTH_CACHE_MS, capped). A key id that matches no key is remembered too, for
 * UNKNOWN_KEY_CACHE_MS, so that guessing keys costs no database read per guess; a key created
 * meanwhile has an id never looked up before, so it works at once. The rate limit is counted in memory (D43):
 * after the cache is warm, authenticating costs no database command.
 */
export function authenticate(
  organizations: Organizations,
  limits: {
    /** D43: requests per key. */
    requests: RateLimiter;
    /** Request-body bytes per test-mode key (docs/decisions.md, "Rate limit"); live keys have none. */
    testBodyBytes: RateLimiter;
  },
  options: { cacheMs: number; unknownKeyCacheMs: number; bodyLimitBytes: number },
  metrics: GatewayMetrics,
): { middleware: Middleware; keys: KeyCache } {
  const cache = new LRUCache<string, KeyWithOrganization>({
    max: 10_000,
    ttl: Math.max(options.cacheMs, options.unknownKeyCacheMs, 1),
    // A failed read fails its requests (503): a revoked key must not keep working through a database outage.
    fetchMethod: async (lookupId, _stale, { options: entry }) => {
      const found = await organizations.keyWithOrganization(lookupId);
      entry.ttl = found.key ? options.cacheMs : options.unknownKeyCacheMs;
      // AUTH_CACHE_MS=0: nothing known is remembered, every request reads its key.
      if (entry.ttl === 0) entry.ttl = 1;
      return found;
    },
  });
  // Keys this replica revoked while they may still be cached: refused at once (deleting the cached entry instead
  // would abort a read of that key in flight and fail its waiting requests).
  const revokedHere = new LRUCache<string, true>({ max: 10_000, ttl: Math.max(options.cacheMs, 1) });
  const middleware: Middleware = async (ctx, next) => {
    const parsed = parseAuthorization(ctx.get('authorization') || undefined);
    if (parsed.kind === 'missing') {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new DomainError(
        'UNAUTHORIZED',
        'Send your secret API key as "Authorization: Bearer sk_test_..." or "sk_live_...".',
      );
    }
    if (parsed.kind === 'malformed-key') throw new DomainError('INVALID_API_KEY', INVALID_KEY_MESSAGE);

    const now = Date.now();
    const cached = await cache.fetch(parsed.lookupId);
    const key = cached?.key ?? null;
    if (
      !key ||
      !keyMatches(parsed.secret, key.hash) ||
      key.status !== 'active' ||
      key.mode !== parsed.mode ||
      revokedHere.has(parsed.lookupId)
    ) {
      throw new DomainError('INVALID_API_KEY', INVALID_KEY_MESSAGE);
    }
    const organization = cached?.organization ?? null;
    if (!organization) throw new DomainError('ORGANIZATION_NOT_FOUND', 'The API key is not linked to an organization.');
    // The request's span names the merchant (an id, never the key): an operator finds a merchant's traces by it.
    annotateActiveSpan({ 'checkout.organization_id': organization._id, 'checkout.mode': key.mode });

    admitWithinLimits(limits, key, ctx, { now, bodyLimitBytes: options.bodyLimitBytes, metrics });

    const scope: Scope = { organizationId: organization._id, mode: key.mode };
    ctx.state.scope = scope;
    ctx.state.apiKeyId = key.keyId;
    ctx.state.apiKeyLookupId = parsed.lookupId;
    ctx.state.organization = organization;
    await next();
  };
  const activeOrganization = async (lookupId: string): Promise<OrganizationDocument | null> => {
    const cached = await cache.fetch(lookupId);
    if (!cached?.key || cached.key.status !== 'active' || revokedHere.has(lookupId)) return null;
    return cached.organization;
  };
  return { middleware, keys: { revoked: (lookupId) => void revokedHere.set(lookupId, true), activeOrganization } };
}

/**
 * D43's limit on requests per key, then, for a test-mode key, the limit on its request bodies' bytes (weighed by
 * Content-Length; a body sent without it, chunked, counts as the largest one accepted: it cannot be weighed before
 * it is read, and reading it is what the limit spares the services). Throws RATE_LIMITED past either.
 */
function admitWithinLimits(
  limits: { requests: RateLimiter; testBodyBytes: RateLimiter },
  key: { keyId: string; mode: Mode },
  ctx: Context,
  at: { now: number; bodyLimitBytes: number; metrics: GatewayMetrics },
): void {
  const refuse = (retryAfterSeconds: number, message: string): never => {
    at.metrics.rateLimited.inc();
    throw new DomainError('RATE_LIMITED', message, { retryAfterSeconds });
  };
  const retryAfter = limits.requests.admit(key.keyId, at.now);
  if (retryAfter > 0) refuse(retryAfter, 'Too many requests for this API key; retry after the indicated delay.');
  if (key.mode !== 'test') return;
  const bodyBytes = ctx.request.length ?? (ctx.get('transfer-encoding') ? at.bodyLimitBytes : 0);
  const retryAfterBytes = limits.testBodyBytes.admit(key.keyId, at.now, bodyBytes);
  if (retryAfterBytes > 0)
    refuse(
      retryAfterBytes,
      'This test-mode API key sent more request-body bytes than test mode allows per window; retry after the ' +
        'indicated delay.',
    );
}
