import { describe, expect, it } from 'vitest';
import { csrfToken, verifyCsrfToken } from './csrf';
import { encodeCheckoutSettingsHeader, signProcessorPayload, verifyProcessorSignature } from '@checkout/contracts';
import { DEFAULT_CHECKOUT_SETTINGS, parseCheckoutSettings } from './checkout-settings';

const SECRET = 'a-secret-of-at-least-16';

describe('CSRF token', () => {
  it('When the token matches the session and cookie, then it verifies', () => {
    const token = csrfToken(SECRET, 'cs_test_1', 'cookievalue123456');
    expect(verifyCsrfToken(SECRET, 'cs_test_1', 'cookievalue123456', token)).toBe(true);
  });
  it('When the session, cookie or secret differ, or a part is missing, then it fails', () => {
    const token = csrfToken(SECRET, 'cs_test_1', 'cookievalue123456');
    expect(verifyCsrfToken(SECRET, 'cs_test_2', 'cookievalue123456', token)).toBe(false);
    expect(verifyCsrfToken(SECRET, 'cs_test_1', 'othercookie123456', token)).toBe(false);
    expect(verifyCsrfToken('another-secret-16chars', 'cs_test_1', 'cookievalue123456', token)).toBe(false);
    expect(verifyCsrfToken(SECRET, 'cs_test_1', undefined, token)).toBe(false);
    expect(verifyCsrfToken(SECRET, 'cs_test_1', 'cookievalue123456', undefined)).toBe(false);
  });
});

describe('processor signature (D27)', () => {
  const body = '{"paymentId":"p1"}';
  const now = new Date('2030-01-01T00:00:00.000Z');
  const t = Math.floor(now.getTime() / 1000);
  it('When signed with the secret within 5 minutes, then it verifies', () => {
    expect(verifyProcessorSignature(SECRET, body, signProcessorPayload(SECRET, body, t - 299), now)).toEqual({
      ok: true,
    });
  });
  it('When old, tampered, wrongly keyed or malformed, then it is refused with a reason', () => {
    expect(verifyProcessorSignature(SECRET, body, signProcessorPayload(SECRET, body, t - 301), now)).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyProcessorSignature(SECRET, `${body} `, signProcessorPayload(SECRET, body, t), now)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifyProcessorSignature(SECRET, body, signProcessorPayload('wrong-secret-16-chars', body, t), now)).toEqual(
      { ok: false, reason: 'mismatch' },
    );
    expect(verifyProcessorSignature(SECRET, body, 'garbage', now)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyProcessorSignature(SECRET, body, undefined, now)).toEqual({ ok: false, reason: 'missing' });
  });
});

describe('checkout settings header', () => {
  it('round-trips, defaults when absent, and refuses garbage', () => {
    const settings = {
      organizationName: 'Acme',
      defaultCallbackUrl: 'https://a.example/hook',
      enabledPaymentMethods: ['card' as const],
    };
    expect(parseCheckoutSettings(encodeCheckoutSettingsHeader(settings))).toEqual(settings);
    expect(parseCheckoutSettings(undefined)).toEqual(DEFAULT_CHECKOUT_SETTINGS);
    expect(() => parseCheckoutSettings('not-json')).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });
});
