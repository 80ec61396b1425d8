import { describe, expect, it } from 'vitest';
import { DISPLAY_NAME_MAX, LOGO_URL_MAX, UpdateCheckoutSettingsRequest } from './checkout-settings';

const accepts = (body: unknown) => UpdateCheckoutSettingsRequest.safeParse(body).success;

describe('a change of checkout settings (the brand and default locale)', () => {
  it('takes each field, null to clear it, and an empty change', () => {
    expect(
      accepts({
        displayName: 'Shop',
        brandColor: '#A0b1C2',
        logoUrl: 'https://cdn.example/l.svg',
        defaultLocale: 'ar',
      }),
    ).toBe(true);
    expect(accepts({ displayName: null, brandColor: null, logoUrl: null, defaultLocale: null })).toBe(true);
    expect(accepts({ defaultLocale: 'auto' })).toBe(true);
    expect(accepts({})).toBe(true);
  });

  it('refuses a logo that is not https, not ASCII, or too long', () => {
    for (const logoUrl of [
      'http://cdn.example/l.png',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      '//cdn.example/l.png',
      ' https://cdn.example/l.png',
      'https://user:pw@cdn.example/l.png',
      'https://\u00dd\u00a1', // not a URI: an international domain goes in its xn-- form
      'https://cdn.example/logo\u00e9.png',
      `https://cdn.example/${'a'.repeat(LOGO_URL_MAX)}`,
    ])
      expect(accepts({ logoUrl }), logoUrl).toBe(false);
    expect(accepts({ logoUrl: `https://cdn.example/${'a'.repeat(LOGO_URL_MAX - 30)}` })).toBe(true);
    expect(accepts({ logoUrl: 'https://xn--bcher-kva.example/logo%C3%A9.png' })).toBe(true);
  });

  it('refuses a colour not #rrggbb, a name too long or empty, a locale not offered, an unknown field', () => {
    for (const brandColor of ['#abc', 'red', '#12345g', 'abcdef', '#1234567'])
      expect(accepts({ brandColor })).toBe(false);
    expect(accepts({ displayName: 'x'.repeat(DISPLAY_NAME_MAX + 1) })).toBe(false);
    expect(accepts({ displayName: 'x'.repeat(DISPLAY_NAME_MAX) })).toBe(true);
    expect(accepts({ displayName: '  ' })).toBe(false);
    for (const defaultLocale of ['en-US', 'pt', 'zh', 'AR']) expect(accepts({ defaultLocale })).toBe(false);
    expect(accepts({ webhookSigning: true })).toBe(false);
  });
});
