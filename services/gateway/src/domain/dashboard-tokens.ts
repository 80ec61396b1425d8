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
  return sameText(csrfTokenFor(sessionToken), given);
}

/**
 * What binds a login link's POST to the browser that opened its page (login CSRF, D47): the page sets a cookie
 * holding a random nonce and its form carries this HMAC of the link, keyed by that nonce. A page of another site
 * can neither read the HttpOnly nonce nor make the browser send the SameSite=Strict cookie with its own POST.
 */
export function loginProofFor(nonce: string, linkHash: string): string {
  return createHmac('sha256', nonce).update(`dashboard-login-v1:${linkHash}`).digest('base64url');
}

export function loginProofMatches(nonce: string, linkHash: string, given: string | undefined): boolean {
  return sameText(loginProofFor(nonce, linkHash), given);
}

/** Constant-time comparison of an expected value with what a form sent. */
function sameText(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
