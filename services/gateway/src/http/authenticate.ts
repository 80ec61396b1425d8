import type { Middleware } from 'koa';
import { DomainError } from '@checkout/errors';
import type { RequestScope } from '@checkout/http';
import { keyMatches, parseAuthorization } from '../domain/api-keys';
import type { ApiKeyDocument, OrganizationDocument, OrganizationsStore } from '../store/organizations.store';
import type { RateLimiter } from '../domain/rate-limit';
import type { GatewayMetrics } from '../metrics';
import { TtlCache } from '@checkout/coalesce';

declare module 'koa' {
  interface DefaultState {
    apiKeyId?: string;
    organization?: OrganizationDocument;
  }
}

interface CachedKey {
  key: ApiKeyDocument | null;
  organization: OrganizationDocument | null;
}

/**
 * D5: resolves the organization and mode from the secret key and puts them on ctx.state.scope, the only
 * place handlers read them from. A short cache keeps the database off the hot path; it also bounds how long
 * a revoked key keeps working (AUTH_CACHE_MS). The rate limit is counted in memory (D43): after the cache is
 * warm, authenticating costs no database command.
 */
export function authenticate(store: OrganizationsStore, rateLimiter: RateLimiter, cacheMs: number, metrics: GatewayMetrics): Middleware {
  // Unknown keys are not remembered: creating a key takes effect at once.
  const cache = new TtlCache<CachedKey>({ ttlMs: cacheMs, maxEntries: 10_000, remember: (entry) => entry.key !== null });
  const load = async (lookupId: string): Promise<CachedKey> => {
    const key = await store.findKeyByLookupId(lookupId);
    return { key, organization: key ? await store.getOrganization(key.organizationId) : null };
  };
  return async (ctx, next) => {
    const parsed = parseAuthorization(ctx.get('authorization') || undefined);
    if (parsed.kind === 'missing') {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new DomainError('UNAUTHORIZED', 'Send your secret API key as "Authorization: Bearer sk_test_..." or "sk_live_...".');
    }
    if (parsed.kind === 'malformed-key') throw new DomainError('INVALID_API_KEY', 'The API key is not valid.');

    const now = Date.now();
    const { key, organization } = await cache.get(parsed.lookupId, () => load(parsed.lookupId));
    if (!key) throw new DomainError('INVALID_API_KEY', 'The API key is not valid.');
    if (!keyMatches(parsed.secret, key.hash) || key.status !== 'active' || key.mode !== parsed.mode) {
      throw new DomainError('INVALID_API_KEY', 'The API key is not valid or has been revoked.');
    }
    if (!organization) throw new DomainError('ORGANIZATION_NOT_FOUND', 'The API key is not linked to an organization.');

    const retryAfter = rateLimiter.admit(key.keyId, now);
    if (retryAfter > 0) {
      metrics.rateLimited.inc();
      throw new DomainError('RATE_LIMITED', 'Too many requests for this API key; retry after the indicated delay.', { retryAfterSeconds: retryAfter });
    }

    const scope: RequestScope = { organizationId: organization._id, mode: key.mode };
    ctx.state.scope = scope;
    ctx.state.apiKeyId = key.keyId;
    ctx.state.organization = organization;
    await next();
  };
}
