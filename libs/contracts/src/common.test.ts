import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, CountryCode, ShippingAddress } from './address';
import { ExternalId, HttpUrl, LimitQuery, PageQuery, PaymentDestination, Timestamp } from './common';
import { CustomerInput, CustomerPatchInput, Phone } from './customer';
import { Metadata } from './user-data';

describe('list query numbers (D20)', () => {
  it('When page and limit are absent, then they default to 1 and 20', () => {
    expect(PageQuery.parse(undefined)).toBe(1);
    expect(LimitQuery.parse(undefined)).toBe(20);
  });

  it.each(['1', '20', '100'])('When limit is %j, then it is accepted as a number', (value) => {
    expect(LimitQuery.parse(value)).toBe(Number(value));
  });

  it.each(['', '0', '101', '1.5', 'abc', '-1', ' 5', '1e2', '0x10', '+5'])(
    'When limit is %j, then it is rejected, not defaulted or coerced (D20, D7)',
    (value) => {
      expect(LimitQuery.safeParse(value).success).toBe(false);
    },
  );

  it.each(['', '0', '1.5', 'abc', '99999999999999999999'])('When page is %j, then it is rejected (D20)', (value) => {
    expect(PageQuery.safeParse(value).success).toBe(false);
  });

  it('When a query parameter is repeated (an array), then it is rejected (D20)', () => {
    expect(LimitQuery.safeParse(['10', '20']).success).toBe(false);
  });

  it('When page is large but a safe integer, then it is accepted (a page past the end is an empty list, D20)', () => {
    expect(PageQuery.parse('1000000')).toBe(1_000_000);
  });

  it('When a number (not a string) is given, then it is rejected: query values are strings', () => {
    expect(LimitQuery.safeParse(10).success).toBe(false);
  });
});

describe('metadata (D13)', () => {
  it('When keys contain "." and "$", then they are accepted as written (D13)', () => {
    const value = { 'a.b': 'x', $set: 'y', '$where.x': '', ключ: 'значение' };
    expect(Metadata.parse(value)).toEqual(value);
  });

  it('When there are 50 keys, then it is accepted; 51 are rejected (D13)', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect(Metadata.safeParse(keys(50)).success).toBe(true);
    expect(Metadata.safeParse(keys(51)).success).toBe(false);
  });

  it.each([
    ['empty key', { '': 'v' }],
    ['key of 41 characters', { ['k'.repeat(41)]: 'v' }],
    ['value of 501 characters', { k: 'v'.repeat(501) }],
    ['number value', { k: 1 }],
    ['null value', { k: null }],
    ['nested object', { k: { a: 'b' } }],
  ])('When metadata has a %s, then it is rejected (D13, D7)', (_, value) => {
    expect(Metadata.safeParse(value).success).toBe(false);
  });

  it('When a key is 40 characters and a value 500, then it is accepted (D13)', () => {
    expect(Metadata.safeParse({ ['k'.repeat(40)]: 'v'.repeat(500) }).success).toBe(true);
  });

  it('When a key is "__proto__" (from JSON), then it is rejected rather than silently dropped', () => {
    expect(Metadata.safeParse(JSON.parse('{"__proto__": "x"}')).success).toBe(false);
  });

  it('When metadata is null or an array, then it is rejected (D7)', () => {
    expect(Metadata.safeParse(null).success).toBe(false);
    expect(Metadata.safeParse(['a']).success).toBe(false);
  });
});

describe('customer (D11)', () => {
  it('When an email has upper case, then it is stored lowercased (D11)', () => {
    expect(CustomerInput.parse({ email: 'Jane.Doe@Example.COM' })).toEqual({ email: 'jane.doe@example.com' });
  });

  it('When name and phone are given, then they are kept as written (D11)', () => {
    const value = { email: 'a@b.co', name: 'Jane Doe', phone: '+1 (415) 555-0123' };
    expect(CustomerInput.parse(value)).toEqual(value);
  });

  it.each([
    ['no email', { name: 'x' }],
    ['bad email', { email: 'not-an-email' }],
    ['email over 254 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }],
    ['null email', { email: null }],
    ['blank name', { email: 'a@b.co', name: '   ' }],
    ['name over 200 characters', { email: 'a@b.co', name: 'n'.repeat(201) }],
    ['unknown field', { email: 'a@b.co', id: 'cust_test_abc' }],
    ['phone with letters', { email: 'a@b.co', phone: '555-CALL-NOW' }],
  ])('When a customer has %s, then it is rejected (D11, D7)', (_, value) => {
    expect(CustomerInput.safeParse(value).success).toBe(false);
  });

  it('When a customer patch omits email, then it is accepted (D11)', () => {
    expect(CustomerPatchInput.parse({ name: 'New Name' })).toEqual({ name: 'New Name' });
  });

  it.each([
    ['+14155550123', true],
    ['415 555 0123', true],
    ['+44 (20) 7946-0958', true],
    ['12345', false],
    ['+1234567890123456', false],
    ['+1 415 555 0123 ext 5', false],
    ['1'.repeat(33), false],
  ])('When phone is %j, then valid is %s', (value, expected) => {
    expect(Phone.safeParse(value).success).toBe(expected);
  });
});

describe('shipping address (D12)', () => {
  const address = { line1: '1 Main St', city: 'Springfield', country: 'US' };

  it('When only the required fields are given, then it is accepted (D12)', () => {
    expect(ShippingAddress.parse(address)).toEqual(address);
  });

  it('When every field is given, then it is accepted (D12)', () => {
    const full = { ...address, name: 'Jane', line2: '', state: 'IL', postalCode: '62704' };
    expect(ShippingAddress.parse(full)).toEqual(full);
  });

  it.each([
    ['missing line1', { city: 'x', country: 'US' }],
    ['blank city', { ...address, city: ' ' }],
    ['line1 over 200 characters', { ...address, line1: 'x'.repeat(201) }],
    ['lower-case country', { ...address, country: 'us' }],
    ['unassigned country code', { ...address, country: 'XX' }],
    ['user-assigned country code', { ...address, country: 'XK' }],
    ['alpha-3 country code', { ...address, country: 'USA' }],
    ['null state', { ...address, state: null }],
    ['unknown field', { ...address, zip: '12345' }],
  ])('When an address has %s, then it is rejected (D12, D7)', (_, value) => {
    expect(ShippingAddress.safeParse(value).success).toBe(false);
  });

  it('When the country list is read, then it holds the 249 assigned ISO 3166-1 alpha-2 codes (D12)', () => {
    expect(COUNTRY_CODES).toHaveLength(249);
    expect(new Set(COUNTRY_CODES).size).toBe(249);
    // Cross-check against the runtime's CLDR data: every listed code has a region name.
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const code of COUNTRY_CODES) expect(names.of(code)).not.toBe(code);
    for (const code of ['GB', 'SS', 'BQ', 'CW', 'SX', 'AX', 'UM'])
      expect(CountryCode.safeParse(code).success).toBe(true);
    for (const code of ['UK', 'EU', 'AN', 'YU', 'ZZ']) expect(CountryCode.safeParse(code).success).toBe(false);
  });
});

describe('URLs (D16)', () => {
  it.each([
    'https://shop.example.com/thanks',
    'http://localhost:3000/cb?session={SESSION_ID}&order={ORDER_ID}',
    'https://example.com/{SESSION_ID}/{SESSION_ID}',
    'HTTPS://EXAMPLE.COM/',
  ])('When the URL is %j, then it is accepted as written (D16, D22)', (value) => {
    expect(HttpUrl.parse(value)).toBe(value);
  });

  it.each([
    ['ftp scheme', 'ftp://example.com/'],
    ['relative', '/thanks'],
    ['scheme without slashes', 'https:example.com'],
    ['javascript scheme', 'javascript:alert(1)'],
    ['surrounding space', ' https://example.com/'],
    ['inner space', 'https://example.com/a b'],
    ['too long', `https://example.com/${'a'.repeat(2029)}`],
    ['empty', ''],
  ])('When the URL is %s, then it is rejected (D16)', (_, value) => {
    expect(HttpUrl.safeParse(value).success).toBe(false);
  });

  it('When the URL is exactly 2048 characters, then it is accepted (D16)', () => {
    const value = `https://example.com/${'a'.repeat(2048 - 20)}`;
    expect(value).toHaveLength(2048);
    expect(HttpUrl.safeParse(value).success).toBe(true);
  });
});

describe('externalId, paymentDestination, timestamps', () => {
  it('When externalId is empty or over 255 characters, then it is rejected; 1 and 255 are fine (D14)', () => {
    expect(ExternalId.safeParse('').success).toBe(false);
    expect(ExternalId.safeParse('x'.repeat(256)).success).toBe(false);
    expect(ExternalId.safeParse('x').success).toBe(true);
    expect(ExternalId.safeParse('x'.repeat(255)).success).toBe(true);
  });

  it.each([
    ['pd_test_abc123', true],
    ['pd_live_ABCdef0123456789ABCdef01', true],
    ['0x52908400098527886E0F7030069857D2E4169EE7', true],
    ['0x52908400098527886e0f7030069857d2e4169ee7', true],
    ['7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', true],
    ['11111111111111111111111111111111', true],
    ['pd_prod_abc', false],
    ['0x5290840009852788', false],
    ['0x52908400098527886E0F7030069857D2E4169EEG', false],
    ['0OIl1111111111111111111111111111', false],
    ['1111111111111111111111111111111', false],
    ['ord_test_abc', false],
    ['', false],
  ])('When paymentDestination is %j, then valid is %s (D15)', (value, expected) => {
    expect(PaymentDestination.safeParse(value).success).toBe(expected);
  });

  it('When a timestamp has milliseconds and Z, then it is accepted; otherwise rejected (D36)', () => {
    expect(Timestamp.safeParse('2026-11-21T10:00:00.000Z').success).toBe(true);
    expect(Timestamp.safeParse('2026-11-21T10:00:00Z').success).toBe(false);
    expect(Timestamp.safeParse('2026-11-21T10:00:00.000+01:00').success).toBe(false);
  });
});
