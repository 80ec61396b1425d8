import { describe, expect, it } from 'vitest';
import {
  INTERNAL_API_HEADERS,
  decodeCheckoutSettingsHeader,
  encodeCheckoutSettingsHeader,
  orderRevisionOf,
} from './internal';

describe('the order revision header (one name, one reader)', () => {
  const header = INTERNAL_API_HEADERS.orderRevision;

  it('reads the revision orders wrote, from a single or repeated header', () => {
    expect(orderRevisionOf({ [header]: '0' })).toBe(0);
    expect(orderRevisionOf({ [header]: '42' })).toBe(42);
    expect(orderRevisionOf({ [header]: ['7', '8'] })).toBe(7);
  });

  it('answers null for a missing, empty or malformed header', () => {
    for (const value of [undefined, '', ' 1', '-1', '1.5', 'abc', '1e3', '9999999999999999']) {
      expect(orderRevisionOf({ [header]: value }), String(value)).toBeNull();
    }
    expect(orderRevisionOf({})).toBeNull();
  });
});

describe('the checkout settings header (one codec for the gateway and sessions)', () => {
  const settings = {
    organizationName: 'Café "Ünïcode" & Co',
    defaultCallbackUrl: 'https://merchant.example/hooks',
    enabledPaymentMethods: ['card' as const, 'stablecoin' as const],
  };

  it('decodes what it encodes, as a header-safe value', () => {
    const header = encodeCheckoutSettingsHeader(settings);
    expect(header).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCheckoutSettingsHeader(header)).toEqual({ ok: true, value: settings });
  });

  it("carries the brand, and reads a header without it (a gateway of the release before the brand's fields)", () => {
    const branded = {
      ...settings,
      displayName: 'Café',
      brandColor: '#0a0a23',
      logoUrl: 'https://cdn.example/logo.png',
      defaultLocale: 'pt-BR' as const,
    };
    expect(decodeCheckoutSettingsHeader(encodeCheckoutSettingsHeader(branded))).toEqual({ ok: true, value: branded });
    const cleared = { ...settings, displayName: null, brandColor: null, logoUrl: null, defaultLocale: null };
    expect(decodeCheckoutSettingsHeader(encodeCheckoutSettingsHeader(cleared))).toEqual({ ok: true, value: cleared });
    const http = Buffer.from(JSON.stringify({ ...settings, logoUrl: 'http://cdn.example/l.png' })).toString(
      'base64url',
    );
    expect(decodeCheckoutSettingsHeader(http)).toEqual({ ok: false, error: 'malformed' });
  });

  it('says why a value cannot be read', () => {
    expect(decodeCheckoutSettingsHeader('not json')).toEqual({ ok: false, error: 'not base64url JSON' });
    expect(
      decodeCheckoutSettingsHeader(Buffer.from(JSON.stringify({ organizationName: 'x' })).toString('base64url')),
    ).toEqual({ ok: false, error: 'malformed' });
  });
});
