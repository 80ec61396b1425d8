import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// D47: login links and dashboard sessions are bearer secrets. Each is 32 random bytes (256 bits), shown once
// (the link's URL, the session's cookie) and stored only as its SHA-256, like API keys: a database reader cannot
// replay them, and a fast hash is enough for values nobody can guess.

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether a string could be one of our tokens: anything else is refused without a database read. */
export function isTokenShaped(value: string | undefined): value is string {
  return value !== undefined && TOKEN_SHAPE.test(value);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The CSRF token of a dashboard session: an HMAC keyed by the session's own (cookie) token, so it needs no
 * storage, differs per session and cannot be computed by a page that cannot read the HttpOnly cookie. Forms
 * carry it; every POST recomputes it from the cookie and compares in constant time.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('dashboard-csrf-v1').digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
