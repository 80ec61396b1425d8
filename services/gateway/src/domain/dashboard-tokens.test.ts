import { describe, expect, it } from 'vitest';
import {
  csrfTokenFor,
  csrfTokenMatches,
  hashToken,
  isTokenShaped,
  loginProofFor,
  loginProofMatches,
  newToken,
} from './dashboard-tokens';

describe('dashboard tokens (D47)', () => {
  it('When a token is made, then it has the accepted shape, and its hash is not the token', () => {
    const token = newToken();
    expect(isTokenShaped(token)).toBe(true);
    expect(hashToken(token)).not.toContain(token);
    expect(isTokenShaped('short')).toBe(false);
    expect(isTokenShaped(undefined)).toBe(false);
  });

  it('When a CSRF token comes from another session, or none is sent, then it does not match', () => {
    const session = newToken();
    expect(csrfTokenMatches(session, csrfTokenFor(session))).toBe(true);
    expect(csrfTokenMatches(session, csrfTokenFor(newToken()))).toBe(false);
    expect(csrfTokenMatches(session, undefined)).toBe(false);
    expect(csrfTokenMatches(session, '')).toBe(false);
  });

  it("When a login form's proof was made with another browser's nonce or for another link, then it does not match", () => {
    const nonce = newToken();
    const link = hashToken(newToken());
    expect(loginProofMatches(nonce, link, loginProofFor(nonce, link))).toBe(true);
    expect(loginProofMatches(nonce, link, loginProofFor(newToken(), link))).toBe(false);
    expect(loginProofMatches(nonce, link, loginProofFor(nonce, hashToken(newToken())))).toBe(false);
    expect(loginProofMatches(nonce, link, undefined)).toBe(false);
  });
});
