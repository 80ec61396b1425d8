import { timingSafeEqual, createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { DomainError } from '@checkout/errors';

export const INTERNAL_HEADERS = {
  token: 'x-internal-token',
  organization: 'x-organization-id',
  mode: 'x-mode',
  /**
   * The request's D42 Idempotency-Key, as the gateway's opaque record id (one per API key and key). An owner
   * derives the ids of what the request creates from it, so a retry after an unknown outcome (a 5xx, a lost
   * answer: the gateway keeps no 5xx) meets what the first try created instead of creating it again.
   */
  idempotencyRecord: 'x-idempotency-record',
} as const;

export interface RequestScope {
  organizationId: string;
  mode: 'test' | 'live';
}

declare module 'koa' {
  interface DefaultState {
    scope?: RequestScope;
  }
}

const sha256 = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** Compares secrets in constant time regardless of their lengths (hashing first equalises the lengths). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * Internal services trust the organization and mode only from a caller holding an internal token (the
 * gateway), so no internal handler can run without a scope and none can choose its own. More than one token is
 * accepted only while a rotation is in progress; every one is compared, so timing says nothing about which.
 */
export function internalAuth(acceptedTokens: readonly string[]): Middleware {
  if (acceptedTokens.length === 0) throw new Error('internalAuth needs at least one accepted token');
  // Hashed once here: every internal request then hashes only the token it brings.
  const acceptedHashes = acceptedTokens.map(sha256);
  return async (ctx, next) => {
    const given = ctx.get(INTERNAL_HEADERS.token);
    const givenHash = sha256(given);
    const matches = acceptedHashes.map((accepted) => timingSafeEqual(givenHash, accepted));
    if (!given || !matches.includes(true)) throw new DomainError('UNAUTHORIZED', 'Missing or invalid internal token.');
    const organizationId = ctx.get(INTERNAL_HEADERS.organization);
    const mode = ctx.get(INTERNAL_HEADERS.mode);
    if (organizationId && (mode === 'test' || mode === 'live')) ctx.state.scope = { organizationId, mode };
    await next();
  };
}

export function requireScope(state: { scope?: RequestScope }): RequestScope {
  if (!state.scope) throw new DomainError('UNAUTHORIZED', 'This internal call needs an organization and mode.');
  return state.scope;
}
