import { describe, expect, it } from 'vitest';
import {
  effectiveStatus,
  expectedTotal,
  expiresAtFor,
  extendedExpiry,
  isDue,
  mergeSessionData,
  readSessionData,
  resolveCallbackUrl,
  owedStatus,
  substitutePlaceholders,
} from './session';

const ids = { sessionId: 'cs_test_abc', orderId: 'ord_test_xyz' };

describe('placeholders (D22)', () => {
  it('When both placeholders repeat, then every occurrence is replaced', () => {
    expect(substitutePlaceholders('https://m.example/{SESSION_ID}/{ORDER_ID}?s={SESSION_ID}&o={ORDER_ID}', ids)).toBe(
      'https://m.example/cs_test_abc/ord_test_xyz?s=cs_test_abc&o=ord_test_xyz',
    );
  });
  it('When a placeholder is unknown or lowercase, then it stays as written', () => {
    expect(substitutePlaceholders('https://m.example/{CUSTOMER_ID}/{session_id}', ids)).toBe(
      'https://m.example/{CUSTOMER_ID}/{session_id}',
    );
  });
  it('When no callbackUrl is given, then the default is used with placeholders; with neither it is null', () => {
    expect(resolveCallbackUrl(undefined, 'https://d.example/{ORDER_ID}', ids)).toBe('https://d.example/ord_test_xyz');
    expect(resolveCallbackUrl('https://r.example/{SESSION_ID}', 'https://d.example', ids)).toBe(
      'https://r.example/cs_test_abc',
    );
    expect(resolveCallbackUrl(undefined, null, ids)).toBeNull();
  });
});

describe('status derivation (D21, D25)', () => {
  const expiresAt = new Date('2030-01-01T10:00:00.000Z');
  const before = new Date(expiresAt.getTime() - 1);
  it('When a pending session is read exactly at expiresAt, then it is expired', () => {
    expect(isDue(expiresAt, expiresAt)).toBe(true);
    expect(effectiveStatus('pending', 'open', expiresAt, expiresAt)).toBe('expired');
    expect(effectiveStatus('pending', 'open', expiresAt, before)).toBe('pending');
  });
  it('When the order is completed or cancelled, then that wins over expiry', () => {
    expect(effectiveStatus('pending', 'completed', expiresAt, expiresAt)).toBe('completed');
    expect(effectiveStatus('pending', 'cancelled', expiresAt, before)).toBe('cancelled');
  });
  it('When the stored status is terminal, then it is final', () => {
    expect(effectiveStatus('expired', 'cancelled', expiresAt, before)).toBe('expired');
    expect(effectiveStatus('completed', 'completed', expiresAt, expiresAt)).toBe('completed');
  });
  it('owedStatus gives the status a stored pending session owes; a settled one owes nothing (D21, D25, D28)', () => {
    expect(owedStatus('pending', 'open', expiresAt, before)).toBeNull();
    expect(owedStatus('pending', 'open', expiresAt, expiresAt)).toBe('expired');
    expect(owedStatus('pending', 'completed', expiresAt, expiresAt)).toBe('completed');
    expect(owedStatus('pending', 'cancelled', expiresAt, before)).toBe('cancelled');
    expect(owedStatus('expired', 'completed', expiresAt, before)).toBeNull();
  });
});

describe('expiry math (D16, D23)', () => {
  const createdAt = new Date('2030-01-01T00:00:00.000Z');
  it('expiresAt is now plus the minutes', () => {
    expect(expiresAtFor(createdAt, 15).toISOString()).toBe('2030-01-01T00:15:00.000Z');
  });
  it('When extending within 7 days, then minutes are added to the current expiresAt', () => {
    const next = extendedExpiry({ status: 'pending', createdAt, expiresAt: expiresAtFor(createdAt, 60) }, 30);
    expect(next.toISOString()).toBe('2030-01-01T01:30:00.000Z');
  });
  it('When the lifetime would pass 7 days, then SESSION_UPDATE_FAILED; exactly 7 days is allowed', () => {
    const sevenDaysMinus = new Date(createdAt.getTime() + 7 * 24 * 3600_000 - 60_000);
    expect(
      extendedExpiry({ status: 'pending', createdAt, expiresAt: sevenDaysMinus }, 1).getTime() - createdAt.getTime(),
    ).toBe(7 * 24 * 3600_000);
    expect(() => extendedExpiry({ status: 'pending', createdAt, expiresAt: sevenDaysMinus }, 2)).toThrow(
      expect.objectContaining({ code: 'SESSION_UPDATE_FAILED' }),
    );
  });
  it('When the session is not pending, then it cannot be extended', () => {
    expect(() => extendedExpiry({ status: 'expired', createdAt, expiresAt: createdAt }, 5)).toThrow(
      expect.objectContaining({ code: 'SESSION_UPDATE_FAILED' }),
    );
  });
});

describe('sessionData (D23)', () => {
  it('merges shallowly and keeps keys with "." and "$" and "__proto__" as data', () => {
    const merged = mergeSessionData(JSON.stringify({ a: 1, 'x.y': { deep: true } }), { b: 2, $k: 'v', a: 'replaced' });
    expect(readSessionData(merged)).toEqual({ a: 'replaced', 'x.y': { deep: true }, b: 2, $k: 'v' });
    const proto = readSessionData(
      mergeSessionData('{}', JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, number>),
    );
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('When the merge exceeds 50 keys, then SESSION_UPDATE_FAILED', () => {
    const current = JSON.stringify(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])));
    expect(() => mergeSessionData(current, { extra: 1 })).toThrow(
      expect.objectContaining({ code: 'SESSION_UPDATE_FAILED' }),
    );
  });
});

describe('expected total (D17, D24)', () => {
  it('computes like orders: percentage discounts round half up', () => {
    expect(
      expectedTotal({ items: [{ quantity: 1, unitPrice: 3097 }], discounts: [{ type: 'percentage', amount: 10 }] }),
    ).toBe(3097 - 310);
    expect(
      expectedTotal({
        items: [{ quantity: 1, unitPrice: 1000 }],
        taxes: [{ amount: 80 }],
        discounts: [{ type: 'fixed', amount: 1000 }],
      }),
    ).toBe(80);
    expect(expectedTotal({ items: [{ quantity: 2, unitPrice: 0 }] })).toBe(0);
    expect(
      expectedTotal({ items: [{ quantity: 1, unitPrice: 100 }], discounts: [{ type: 'fixed', amount: 101 }] }),
    ).toBeNull();
  });
});
