import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Double-submit CSRF for the hosted page: a random value in a SameSite cookie, and in the form an HMAC of
// (session id, that value) under CSRF_SECRET. A forged POST has neither the cookie value nor the secret.

export const CSRF_COOKIE = 'checkout_csrf';

export function newCsrfCookieValue(): string {
  return randomBytes(18).toString('base64url');
}

export function csrfToken(secret: string, sessionId: string, cookieValue: string): string {
  return createHmac('sha256', secret).update(`${sessionId}.${cookieValue}`).digest('base64url');
}

export function verifyCsrfToken(
  secret: string,
  sessionId: string,
  cookieValue: string | undefined,
  token: string | undefined,
): boolean {
  if (!cookieValue || !token) return false;
  const expected = Buffer.from(csrfToken(secret, sessionId, cookieValue));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
