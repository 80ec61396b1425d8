import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Mode } from '@checkout/contracts';

// A secret key is sk_<mode>_<lookup id: 12><secret: 32>. Only the sha256 of the whole key is stored; the
// lookup id finds the record and the hashes are compared in constant time. Keys carry ~190 bits of
// randomness, so a fast hash is enough (there is nothing to brute-force as with passwords).
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 32;
const KEY_SHAPE = /^sk_(test|live)_([0-9A-Za-z]{12})([0-9A-Za-z]{32})$/;
const BEARER_KEY_SHAPE = /^sk_(test|live)_[0-9A-Za-z]+$/;

function randomString(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export interface NewApiKey {
  secret: string;
  lookupId: string;
  hash: string;
  last4: string;
}

export function generateApiKey(mode: Mode): NewApiKey {
  const lookupId = randomString(LOOKUP_LENGTH);
  const secret = `sk_${mode}_${lookupId}${randomString(SECRET_LENGTH)}`;
  return { secret, lookupId, hash: hashKey(secret), last4: secret.slice(-4) };
}

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export type ParsedAuthorization =
  { kind: 'key'; mode: Mode; lookupId: string; secret: string } | { kind: 'malformed-key' } | { kind: 'missing' };

/**
 * D5: a missing header, another scheme or a value that is not an sk_test_/sk_live_ key is "missing"
 * (401 UNAUTHORIZED); an sk_ key of the wrong length can never match, so it is "malformed-key" (401
 * INVALID_API_KEY, like any unknown key).
 */
export function parseAuthorization(header: string | undefined): ParsedAuthorization {
  const match = /^Bearer (\S+)$/.exec(header ?? '');
  if (!match?.[1] || !BEARER_KEY_SHAPE.test(match[1])) return { kind: 'missing' };
  const key = KEY_SHAPE.exec(match[1]);
  if (!key) return { kind: 'malformed-key' };
  return { kind: 'key', mode: key[1] as Mode, lookupId: key[2] as string, secret: match[1] };
}

export function keyMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashKey(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
