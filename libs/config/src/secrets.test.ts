import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig, mongoUrl, secret, weakSecretReason } from './index';

// The *.env.example placeholders passed every config check, so a copied example started a
// production service whose admin API and processor signature anyone could use. Every secret setting now refuses
// placeholders and values too predictable to be generated; deploy/test checks the examples themselves.

describe('secret settings', () => {
  it.each([
    'replace-with-32+-random-characters-for-operators-only',
    'replace-with-the-secret-shared-with-the-payment-processor',
    'CHANGE-ME-internal-token-0000000000000',
    'changeme-changeme-changeme-changeme',
    'your-secret-here-your-secret-here-123',
    'example-example-example-example-ex',
    'local-internal-token-0123456789-abc',
    'x'.repeat(40),
    'abababababababababababababababababab',
    'a-different-internal-token-for-orders',
    '12345678901234567890123456789012345',
    '<generate with openssl rand -base64 32>',
  ])('When a secret is %j, then it is refused', (value) => {
    expect(weakSecretReason(value, 32)).not.toBeNull();
  });

  it.each([
    'sk_live_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    'key-Kx8Qz-000000-Zr4Tp-Wm2Yc-Hn7Bv-Lq',
    '${ADMIN_TOKEN_FROM_THE_VAULT_PLEASE_42}',
    'change_me_before_going_live_9f8e7d6c5b4a',
    'Placeholder.For.The.Operators.Token.42',
    'QWERTY-asdfgh-Zx9Lp2Rt7Vb4Nm6Kj3Hg8Fd',
    'prod-abcdef-Q7x2Lp9Rt4Vb8Nm1Kj6Hg3Fd5Sw',
    'Q7x2Lp9Rt4Vb8Nm1-0123456789-Kj6Hg3Fd5Sw',
    'DEFAULT_Q7x2Lp9Rt4Vb8Nm1Kj6Hg3Fd5Sw2Ae',
  ])(
    'When a secret has a placeholder word or shape among random-looking characters (%j), then it is refused',
    (value) => {
      expect(weakSecretReason(value, 32)).not.toBeNull();
    },
  );

  // The generators' output must essentially never look like a placeholder (matching short substrings
  // such as "todo" or "abcdef" refused about 1 random secret in 10⁴, so this test flaked). The rules match
  // whole tokens and shapes; by their construction a random value trips one with a probability of about 10⁻⁹ per
  // value or less (see PLACEHOLDER_WORDS; none in 6,000,000 tried), so this fails under once in a thousand runs.
  it('When 100,000 secrets of each generator are checked (the local stack’s 24 random bytes as base64url, openssl rand -base64 32, -hex 32), then every one is accepted', () => {
    // Drawn in bulk (one randomBytes call per generator) so that the run takes a second or two, not the timeout.
    const count = 100_000;
    const pool = { base64url: randomBytes(24 * count), base64: randomBytes(32 * count), hex: randomBytes(32 * count) };
    const refused: string[] = [];
    for (let i = 0; i < count; i += 1) {
      for (const value of [
        pool.base64url.subarray(24 * i, 24 * (i + 1)).toString('base64url'),
        pool.base64.subarray(32 * i, 32 * (i + 1)).toString('base64'),
        pool.hex.subarray(32 * i, 32 * (i + 1)).toString('hex'),
      ]) {
        if (weakSecretReason(value, 32) !== null) refused.push(value);
      }
    }
    expect(refused).toEqual([]);
  }, 60_000);

  it('When a secret is too short, then the message says how long it must be, and never shows the value', () => {
    const schema = z.object({ ADMIN_TOKEN: secret(32) });
    let error: unknown;
    try {
      loadConfig('gateway', schema, { ADMIN_TOKEN: 'replace-with-32+-random-characters-for-operators-only' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('ADMIN_TOKEN');
    expect((error as Error).message).toContain('placeholder');
    expect((error as Error).message).not.toContain('operators-only');
  });

  it('When a MongoDB URL carries a placeholder password, then it is refused, and the password is not shown', () => {
    const schema = z.object({ MONGODB_URL: mongoUrl() });
    const example = 'mongodb://gateway:REPLACE-PASSWORD@mongodb-0.mongodb.mongodb.svc:27017/?replicaSet=rs0';
    expect(() => loadConfig('gateway', schema, { MONGODB_URL: example })).toThrow(
      /MONGODB_URL="mongodb:\/\/gateway:<redacted>@.*password/,
    );
    expect(() =>
      loadConfig('gateway', schema, {
        MONGODB_URL: `mongodb://gateway:${randomBytes(18).toString('base64url')}@db:27017/`,
      }),
    ).not.toThrow();
    expect(() => loadConfig('gateway', schema, { MONGODB_URL: 'mongodb://127.0.0.1:27017/' })).not.toThrow();
  });
});
