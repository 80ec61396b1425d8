import { describe, expect, it } from 'vitest';
import {
  SIGNING_SECRET_OVERLAP_MS,
  brandOf,
  defaultCheckoutSettings,
  patchCheckoutSettings,
  previousSecretSignsUntil,
  signingSecrets,
  type CheckoutSettings,
} from './checkout-settings';
import { NO_BRAND } from '@checkout/contracts';

const now = new Date('2026-11-27T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const signed = (previous: CheckoutSettings['previousWebhookSigningSecret'] = null): CheckoutSettings => ({
  ...defaultCheckoutSettings('test'),
  webhookSigningSecret: 'whsec_current',
  previousWebhookSigningSecret: previous,
});

describe('checkout settings defaults (D26)', () => {
  it('When a mode was never configured, then test mode offers every method and live mode card only, unsigned', () => {
    expect(defaultCheckoutSettings('test').enabledPaymentMethods.length).toBeGreaterThan(1);
    expect(defaultCheckoutSettings('live')).toEqual({
      defaultCallbackUrl: null,
      enabledPaymentMethods: ['card'],
      webhookSigningSecret: null,
      previousWebhookSigningSecret: null,
      ...NO_BRAND,
    });
  });
});

describe('the secrets deliveries are signed with (D35)', () => {
  it('When signing is off, then no secret signs, even one a rotation replaced', () => {
    const off = { ...signed({ secret: 'whsec_old', until: later(1000) }), webhookSigningSecret: null };
    expect(signingSecrets(off, now)).toEqual([]);
  });

  it('When a rotation replaced a secret, then both sign until `until`, the current one first; then only the current', () => {
    const settings = signed({ secret: 'whsec_old', until: later(1000) });
    expect(signingSecrets(settings, now)).toEqual(['whsec_current', 'whsec_old']);
    expect(previousSecretSignsUntil(settings, now)).toEqual(later(1000));
    expect(signingSecrets(settings, later(1000))).toEqual(['whsec_current']);
    expect(previousSecretSignsUntil(settings, later(1000))).toBeUndefined();
  });
});

describe("an operator's patch of checkout settings (D35)", () => {
  it('When signing is rotated, then a new secret is shown once and the replaced one signs for the overlap', () => {
    const { settings, newSecret } = patchCheckoutSettings(signed(), { webhookSigning: true }, now);
    expect(newSecret).toMatch(/^whsec_/);
    expect(settings.webhookSigningSecret).toBe(newSecret);
    expect(settings.previousWebhookSigningSecret).toEqual({
      secret: 'whsec_current',
      until: later(SIGNING_SECRET_OVERLAP_MS),
    });
  });

  it('When signing is turned off, then no secret signs from now on, the replaced one neither', () => {
    const { settings, newSecret } = patchCheckoutSettings(
      signed({ secret: 'whsec_old', until: later(1000) }),
      { webhookSigning: false },
      now,
    );
    expect(newSecret).toBeUndefined();
    expect(signingSecrets(settings, now)).toEqual([]);
    expect(settings.previousWebhookSigningSecret).toBeNull();
  });

  it('When only other fields change, then the secrets stay, and a replaced secret past its overlap is dropped', () => {
    const { settings, newSecret } = patchCheckoutSettings(
      signed({ secret: 'whsec_old', until: now }),
      { defaultCallbackUrl: 'https://shop.example/done', enabledPaymentMethods: ['card'] },
      now,
    );
    expect(newSecret).toBeUndefined();
    expect(settings).toEqual({
      defaultCallbackUrl: 'https://shop.example/done',
      enabledPaymentMethods: ['card'],
      webhookSigningSecret: 'whsec_current',
      previousWebhookSigningSecret: null,
      ...NO_BRAND,
    });
  });

  it('When signing is first turned on, then there is no replaced secret to keep', () => {
    const { settings } = patchCheckoutSettings(defaultCheckoutSettings('live'), { webhookSigning: true }, now);
    expect(settings.previousWebhookSigningSecret).toBeNull();
    expect(signingSecrets(settings, now)).toEqual([settings.webhookSigningSecret]);
  });
});

describe("the hosted page's brand in checkout settings", () => {
  const branded = {
    ...defaultCheckoutSettings('test'),
    displayName: 'Café Ünïcode',
    brandColor: '#112233',
    logoUrl: 'https://cdn.example/logo.png',
    defaultLocale: 'fr' as const,
  };

  it('When a patch leaves a brand field out, then it stays; when it sends null, then it is cleared', () => {
    const { settings } = patchCheckoutSettings(branded, { displayName: null, defaultLocale: 'ar' }, now);
    expect(brandOf(settings)).toEqual({
      displayName: null,
      brandColor: '#112233',
      logoUrl: 'https://cdn.example/logo.png',
      defaultLocale: 'ar',
    });
    expect(settings.enabledPaymentMethods).toEqual(branded.enabledPaymentMethods);
  });

  it('When a colour is sent in capitals, then it is kept in lower case (one spelling per colour)', () => {
    expect(patchCheckoutSettings(branded, { brandColor: '#ABCDEF' }, now).settings.brandColor).toBe('#abcdef');
  });

  it('When an operator changes other fields, then the brand stays', () => {
    const { settings } = patchCheckoutSettings(branded, { webhookSigning: true }, now);
    expect(brandOf(settings)).toEqual(brandOf(branded));
  });
});
