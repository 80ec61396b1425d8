import { describe, expect, it } from 'vitest';
import { generateApiKey, keyMatches, parseAuthorization } from './api-keys';

describe('API keys (D5)', () => {
  it('When a key is generated, then it has the sk_<mode>_ prefix and only its hash verifies it', () => {
    const key = generateApiKey('test');
    expect(key.secret).toMatch(/^sk_test_[0-9A-Za-z]{44}$/);
    expect(key.hash).not.toContain(key.secret);
    expect(keyMatches(key.secret, key.hash)).toBe(true);
    const last = key.secret.slice(-1);
    expect(keyMatches(`${key.secret.slice(0, -1)}${last === 'x' ? 'y' : 'x'}`, key.hash)).toBe(false);
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['Basic abc', 'missing'],
    ['Bearer pk_test_abc', 'missing'],
    ['Bearer sk_prod_abc', 'missing'],
    ['bearer sk_test_abc', 'missing'],
    ['Bearer sk_test_short', 'malformed-key'],
  ])('When the header is %j, then it is %s', (header, kind) => {
    expect(parseAuthorization(header).kind).toBe(kind);
  });

  it('When the header carries a well-formed key, then mode and lookup id are read from it', () => {
    const key = generateApiKey('live');
    const parsed = parseAuthorization(`Bearer ${key.secret}`);
    expect(parsed).toEqual({ kind: 'key', mode: 'live', lookupId: key.lookupId, secret: key.secret });
  });
});
