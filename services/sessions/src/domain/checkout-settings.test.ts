import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECKOUT_SETTINGS, brandOfNewSession, localeOfNewSession } from './checkout-settings';

describe("a new session's brand and locale from the merchant's checkout settings", () => {
  it('keeps the set parts of the brand, the colour in lower case, and nothing when none is set', () => {
    expect(
      brandOfNewSession({
        ...DEFAULT_CHECKOUT_SETTINGS,
        displayName: 'Coffee & Co',
        brandColor: '#AABBCC',
        logoUrl: null,
      }),
    ).toEqual({ displayName: 'Coffee & Co', color: '#aabbcc' });
    expect(brandOfNewSession({ ...DEFAULT_CHECKOUT_SETTINGS, logoUrl: 'https://cdn.example/l.png' })).toEqual({
      logoUrl: 'https://cdn.example/l.png',
    });
    // A gateway of the release before the brand sends none of its fields.
    expect(brandOfNewSession(DEFAULT_CHECKOUT_SETTINGS)).toBeUndefined();
  });

  it("takes the requested locale, else the merchant's default, else auto", () => {
    expect(localeOfNewSession('de', { defaultLocale: 'ja' })).toBe('de');
    expect(localeOfNewSession('auto', { defaultLocale: 'ja' })).toBe('auto');
    expect(localeOfNewSession(undefined, { defaultLocale: 'ja' })).toBe('ja');
    expect(localeOfNewSession(undefined, { defaultLocale: null })).toBe('auto');
    expect(localeOfNewSession(undefined, {})).toBe('auto');
  });
});
