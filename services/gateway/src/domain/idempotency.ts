import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_MAX } from '@checkout/contracts';

// D42: what makes two requests "the same" for an Idempotency-Key, as pure functions.

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body, as they are one request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The request a key was first used for: method, path and body. A key reused on another endpoint is a reuse
 * with a different request, like a different body.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${body === undefined ? '' : canonicalJson(body)}`)
    .digest('base64url');
}

/** Keys are per API key; the stored id is a hash, so a caller's key (any characters) never becomes a field name. */
export function idempotencyRecordId(apiKeyId: string, key: string): string {
  return createHash('sha256').update(`${apiKeyId}\n${key}`).digest('base64url');
}

export function idempotencyKeyProblem(key: string): string | null {
  if (key.length === 0) return 'Idempotency-Key must not be empty.';
  if (key.length > IDEMPOTENCY_KEY_MAX) return `Idempotency-Key may be at most ${IDEMPOTENCY_KEY_MAX} characters.`;
  return null;
}
