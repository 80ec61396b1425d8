import { describe, expect, it } from 'vitest';
import { newNonce, pageHeaders } from './headers';

describe('pageHeaders', () => {
  it('allows no script by default: only the nonce for the style', () => {
    expect(pageHeaders({ nonce: 'n1' })).toEqual({
      'Content-Security-Policy':
        "default-src 'none'; style-src 'nonce-n1'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
    });
  });

  it("allows the page's own script and fetches, and forms to the origins given", () => {
    expect(
      pageHeaders({ nonce: 'n2', script: true, formTargets: ['https://shop.example'] })['Content-Security-Policy'],
    ).toBe(
      "default-src 'none'; style-src 'nonce-n2'; script-src 'nonce-n2'; connect-src 'self'; img-src 'self' data:; " +
        "form-action 'self' https://shop.example; frame-ancestors 'none'; base-uri 'none'",
    );
  });

  it('allows images from https: only when asked (a merchant logo), never from our origin, inline or http:', () => {
    const csp = pageHeaders({ nonce: 'n3', images: 'https' })['Content-Security-Policy'];
    expect(csp).toContain('; img-src https:; ');
    expect(csp).not.toMatch(/img-src[^;]*('self'|data:|http:)/);
  });

  it('makes a new nonce each time', () => {
    expect(newNonce()).not.toBe(newNonce());
    expect(Buffer.from(newNonce(8), 'base64')).toHaveLength(8);
  });
});
