import { describe, expect, it } from 'vitest';
import { canonicalJson, idempotencyKeyProblem, idempotencyRecordId, requestFingerprint } from './idempotency';

describe('Idempotency-Key request identity (D42)', () => {
  it('When two bodies differ only in key order, then their fingerprints are equal', () => {
    const a = requestFingerprint('POST', '/v0/orders', {
      items: [{ name: 'A', quantity: 1 }],
      metadata: { x: '1', y: '2' },
    });
    const b = requestFingerprint('POST', '/v0/orders', {
      metadata: { y: '2', x: '1' },
      items: [{ quantity: 1, name: 'A' }],
    });
    expect(a).toBe(b);
  });

  it('When a value, an array order or the path differs, then the fingerprints differ', () => {
    const base = requestFingerprint('POST', '/v0/orders', { items: [1, 2] });
    expect(requestFingerprint('POST', '/v0/orders', { items: [2, 1] })).not.toBe(base);
    expect(requestFingerprint('POST', '/v0/checkout/sessions', { items: [1, 2] })).not.toBe(base);
    expect(requestFingerprint('POST', '/v0/orders', undefined)).not.toBe(requestFingerprint('POST', '/v0/orders', {}));
  });

  it('When canonical JSON is produced, then it parses back to the same value', () => {
    const value = { b: [1, { d: null, c: 'x' }], a: 'é"\\' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('When two API keys use one key string, then their records are distinct', () => {
    expect(idempotencyRecordId('key_a', 'k1')).not.toBe(idempotencyRecordId('key_b', 'k1'));
    expect(idempotencyRecordId('key_a', 'k1')).toBe(idempotencyRecordId('key_a', 'k1'));
  });

  it('When a key is empty or longer than 255 characters, then it is refused; 255 is fine', () => {
    expect(idempotencyKeyProblem('')).not.toBeNull();
    expect(idempotencyKeyProblem('k'.repeat(256))).toMatch(/255/);
    expect(idempotencyKeyProblem('k'.repeat(255))).toBeNull();
  });
});
