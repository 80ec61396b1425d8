import { describe, expect, it } from 'vitest';
import { CreateSessionRequest, PayRequest, SessionData, SessionResponse, UpdateSessionRequest } from './sessions';

const items = [{ name: 'Ticket', quantity: 1, unitPrice: 2500 }];

describe('CreateSessionRequest (D16, D22)', () => {
  it('When only items are given, then expiry defaults to 60 minutes, nothing is required of the customer and the locale is left to the organization (D53)', () => {
    expect(CreateSessionRequest.parse({ items })).toEqual({
      items,
      expiresInMinutes: 60,
      requireFromCustomer: { phone: false, shippingAddress: false, location: false },
    });
  });

  it('When every session field is given, then it is accepted and URLs keep their placeholders (D22)', () => {
    const body = {
      items,
      externalId: 'cart-9',
      expiresInMinutes: 15,
      successUrl: 'https://shop.example/ok?s={SESSION_ID}&o={ORDER_ID}',
      callbackUrl: 'https://shop.example/hooks/{SESSION_ID}',
      requireFromCustomer: { phone: true, shippingAddress: true, location: false },
      paymentDestination: '0x52908400098527886E0F7030069857D2E4169EE7',
      customer: { email: 'buyer@example.com' },
      metadata: { a: 'b' },
      locationId: 'loc_test_abc',
      locale: 'pt-BR',
    };
    expect(CreateSessionRequest.parse(body)).toEqual(body);
  });

  it.each(['auto', 'en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'ja', 'zh-Hans', 'ar'])(
    'When locale is %s, then it is one the hosted page speaks (D53)',
    (locale) => {
      expect(CreateSessionRequest.parse({ items, locale }).locale).toBe(locale);
    },
  );

  it.each(['pt', 'EN', 'zh-CN', 'en-US', 'klingon', '', 7])(
    'When locale is %j, then it is rejected (D53)',
    (locale) => {
      expect(CreateSessionRequest.safeParse({ items, locale }).success).toBe(false);
    },
  );

  it('When requireFromCustomer names only some inputs, then the rest default to false (D16)', () => {
    expect(CreateSessionRequest.parse({ items, requireFromCustomer: { phone: true } }).requireFromCustomer).toEqual({
      phone: true,
      shippingAddress: false,
      location: false,
    });
  });

  it.each([
    ['expiresInMinutes 14', { expiresInMinutes: 14 }],
    ['expiresInMinutes 1441', { expiresInMinutes: 1441 }],
    ['fractional expiresInMinutes', { expiresInMinutes: 30.5 }],
    ['expiresInMinutes as a string', { expiresInMinutes: '60' }],
    ['ftp successUrl', { successUrl: 'ftp://example.com' }],
    ['relative callbackUrl', { callbackUrl: '/hooks' }],
    ['null successUrl', { successUrl: null }],
    ['string flag in requireFromCustomer', { requireFromCustomer: { phone: 'yes' } }],
    ['unknown input in requireFromCustomer', { requireFromCustomer: { email: true } }],
    ['unknown field', { mode: 'live' }],
    ['bad paymentDestination', { paymentDestination: 'abc' }],
  ])('When the body has %s, then it is rejected (D16, D7)', (_, extra) => {
    expect(CreateSessionRequest.safeParse({ items, ...extra }).success).toBe(false);
  });

  it('When expiresInMinutes is 15 or 1440, then it is accepted (D16)', () => {
    expect(CreateSessionRequest.safeParse({ items, expiresInMinutes: 15 }).success).toBe(true);
    expect(CreateSessionRequest.safeParse({ items, expiresInMinutes: 1440 }).success).toBe(true);
  });
});

describe('UpdateSessionRequest (D23)', () => {
  it('When the body is empty, then it is accepted', () => {
    expect(UpdateSessionRequest.parse({})).toEqual({});
  });

  it.each([0, 1441, 1.5, -5])('When extendExpiry is %j, then it is rejected (D23)', (extendExpiry) => {
    expect(UpdateSessionRequest.safeParse({ extendExpiry }).success).toBe(false);
  });

  it('When extendExpiry is 1 or 1440, then it is accepted (D23)', () => {
    expect(UpdateSessionRequest.safeParse({ extendExpiry: 1 }).success).toBe(true);
    expect(UpdateSessionRequest.safeParse({ extendExpiry: 1440 }).success).toBe(true);
  });

  it('When sessionData holds any JSON values, then it is accepted as written (D23)', () => {
    const sessionData = { a: 1, b: 'x', c: null, d: [1, { e: true }], 'f.g': { $h: [] } };
    expect(UpdateSessionRequest.parse({ sessionData })).toEqual({ sessionData });
  });

  it('When sessionData has 51 keys, then it is rejected; 50 are accepted (D23)', () => {
    const of = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(SessionData.safeParse(of(50)).success).toBe(true);
    expect(SessionData.safeParse(of(51)).success).toBe(false);
  });

  it('When sessionData serializes to more than 8 KiB, then it is rejected; exactly 8 KiB is accepted (D23)', () => {
    const overhead = JSON.stringify({ k: '' }).length;
    expect(SessionData.safeParse({ k: 'x'.repeat(8192 - overhead) }).success).toBe(true);
    expect(SessionData.safeParse({ k: 'x'.repeat(8193 - overhead) }).success).toBe(false);
  });

  it('When sessionData is counted, then multi-byte characters count in UTF-8 bytes (D23)', () => {
    const overhead = JSON.stringify({ k: '' }).length;
    // "é" is 2 bytes: half as many characters as the ASCII limit already overflow by one byte.
    expect(SessionData.safeParse({ k: 'é'.repeat((8192 - overhead) / 2 + 1) }).success).toBe(false);
  });

  it.each([
    ['null', null],
    ['an array', [1, 2]],
    ['a string', 'x'],
  ])('When sessionData is %s, then it is rejected (D7)', (_, sessionData) => {
    expect(UpdateSessionRequest.safeParse({ sessionData }).success).toBe(false);
  });

  it('When sessionData has a nested "__proto__" key, then it is rejected rather than dropped', () => {
    expect(SessionData.safeParse(JSON.parse('{"a": {"__proto__": {"x": 1}}}')).success).toBe(false);
  });
});

describe('PayRequest (D29)', () => {
  it('When the body is empty, then method is card and outcome succeeded', () => {
    expect(PayRequest.parse({})).toEqual({ method: 'card', outcome: 'succeeded' });
  });

  it.each([
    [{ method: 'cash' }],
    [{ amount: 0 }],
    [{ amount: 1.5 }],
    [{ outcome: 'failed' }],
    [{ card: '4242424242424242' }],
  ])('When the body is %j, then it is rejected (D29)', (body) => {
    expect(PayRequest.safeParse(body).success).toBe(false);
  });
});

describe('SessionResponse (D1, D22, D39)', () => {
  it('When a session is returned, then it is under the "session" key with its order embedded (D1)', () => {
    const session = {
      id: 'cs_test_abc',
      url: 'https://checkout.example/cs_test_abc',
      status: 'pending',
      active: true,
      failedAttempts: 0,
      successUrl: null,
      callbackUrl: null,
      expiresAt: '2026-11-21T11:00:00.000Z',
      createdAt: '2026-11-21T10:00:00.000Z',
      updatedAt: '2026-11-21T10:00:00.000Z',
      requireFromCustomer: { phone: false, shippingAddress: false, location: false },
      locale: 'auto',
      sessionData: {},
      order: {
        id: 'ord_test_abc',
        provider: 'native',
        currency: 'USD',
        status: 'open',
        paymentStatus: 'unpaid',
        amounts: { subtotal: 2500, tax: 0, discount: 0, tip: 0, total: 2500, paid: 0, refunded: 0 },
        items: [{ id: 'item_a', name: 'Ticket', quantity: 1, unitPrice: 2500, totalPrice: 2500, itemType: 'product' }],
        taxes: [],
        discounts: [],
        metadata: {},
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    };
    expect(SessionResponse.parse({ session })).toEqual({ session });
    expect(SessionResponse.safeParse({ session: { ...session, status: 'open' } }).success).toBe(false);
    // D53: a session stored or presented before locales existed has none, and reads as auto.
    const { locale, ...older } = session;
    expect(SessionResponse.parse({ session: older }).session.locale).toBe(locale);
    expect(SessionResponse.parse({ session: { ...session, locale: 'ja' } }).session.locale).toBe('ja');
  });
});
