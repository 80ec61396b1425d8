import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BODY_DEPTH_MAX,
  DiscountInput,
  Email,
  JSON_DEPTH_MAX,
  LimitQuery,
  Metadata,
  PAGE_MAX,
  PageQuery,
  Phone,
  SessionData,
  SessionEventV1,
  UpdateSessionRequest,
  jsonDepthExceeds,
} from './index';

// Schemathesis found the OpenAPI document promising more than the server accepts, and deep
// sessionData overflowing the stack. The zod schemas are the single source of both, so each rule is checked
// here twice: what the schema accepts, and what its JSON Schema (the document's form) says.

const inputJson = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
const outputJson = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;

function nested(depth: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

describe('phone (D11): the document pattern is the server rule', () => {
  const pattern = new RegExp(String(inputJson(Phone).pattern));
  it.each([
    ['+14155550123', true],
    ['+1 (415) 555-0123', true],
    ['1234567', true],
    ['123456', false],
    ['1234567890123456', false],
    ['+', false],
    ['()-. ', false],
    ['12345 67', true],
  ])('When phone is %j, then the schema and the document pattern both say %s', (value, expected) => {
    expect(Phone.safeParse(value).success).toBe(expected);
    expect(pattern.test(value)).toBe(expected);
  });
});

describe('email (D11): a pattern, not a format each client interprets its own way', () => {
  it('When the document form is generated, then email carries the server pattern and no "format"', () => {
    const json = inputJson(Email);
    expect(json.format).toBeUndefined();
    expect(new RegExp(String(json.pattern)).test('Jane.Doe@Example.com')).toBe(true);
    expect(Email.parse('Jane.Doe@Example.com')).toBe('jane.doe@example.com');
    expect(Email.safeParse('not-an-email').success).toBe(false);
  });
});

describe('page and limit (D20): typed as bounded integers in the document', () => {
  it('When the document form is generated, then limit is an integer 1..100 and page 1..PAGE_MAX', () => {
    expect(outputJson(LimitQuery)).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(outputJson(PageQuery)).toMatchObject({ type: 'integer', minimum: 1, maximum: PAGE_MAX });
  });

  it('When limit is 101 or page is past PAGE_MAX, then the message names the bound, not "must be an integer"', () => {
    const limit = LimitQuery.safeParse('101');
    expect(limit.error?.issues[0]?.message).toBe('limit must be at most 100');
    const page = PageQuery.safeParse(String(PAGE_MAX + 1));
    expect(page.error?.issues[0]?.message).toBe(`page must be at most ${PAGE_MAX}`);
    expect(PageQuery.safeParse('99999999999999999999').success).toBe(false);
    expect(PageQuery.parse(String(PAGE_MAX))).toBe(PAGE_MAX);
  });
});

describe('percentage discounts (D9): exactly one of amount and rate, in the document too', () => {
  type Variant = { properties: { type: { const: string } }; oneOf?: unknown };
  const variants = (): Variant[] => {
    const json = JSON.parse(JSON.stringify(inputJson(DiscountInput))) as {
      $defs: Record<string, { oneOf?: Array<{ $ref: string }> } & Variant>;
    };
    // The variants are named (FixedDiscountInput, PercentageDiscountInput), so the union refers to them.
    return (json.$defs.DiscountInput?.oneOf ?? []).map(
      ({ $ref }) => json.$defs[$ref.replace('#/$defs/', '')] as Variant,
    );
  };
  it('When the document form is generated, then the percentage variant requires one of amount or rate', () => {
    const variant = variants().find((v) => v.properties.type.const === 'percentage');
    expect(variant?.oneOf).toEqual([{ required: ['amount'] }, { required: ['rate'] }]);
  });
  it.each([
    [{ name: 'd', type: 'percentage', amount: 10 }, true],
    [{ name: 'd', type: 'percentage', rate: 10 }, true],
    [{ name: 'd', type: 'percentage', amount: 10, rate: 10 }, false],
    [{ name: 'd', type: 'percentage' }, false],
  ])('When the discount is %j, then valid is %s', (value, expected) => {
    expect(DiscountInput.safeParse(value).success).toBe(expected);
  });
});

describe('__proto__ keys (D13): refused, and the document says so', () => {
  it('When metadata or sessionData is described, then their keys exclude "__proto__"', () => {
    expect(JSON.stringify(inputJson(Metadata))).toContain('"not":{"const":"__proto__"}');
    expect(JSON.stringify(inputJson(SessionData))).toContain('"not":{"const":"__proto__"}');
  });
  it('When "__proto__" is a key at any level, then it is refused', () => {
    expect(Metadata.safeParse(JSON.parse('{"__proto__": "x"}')).success).toBe(false);
    expect(SessionData.safeParse(JSON.parse('{"a": [{"__proto__": 1}]}')).success).toBe(false);
    expect(Metadata.safeParse({ constructor: 'c', $where: 'w', 'a.b': 'd' }).success).toBe(true);
  });
});

describe(`nesting depth: at most ${JSON_DEPTH_MAX} levels in sessionData, ${BODY_DEPTH_MAX} in a body`, () => {
  it('When depth is measured, then scalars are 0, containers count once per level, and any depth is measured without recursion', () => {
    expect(jsonDepthExceeds(1, 0)).toBe(false);
    expect(jsonDepthExceeds({}, 0)).toBe(true);
    expect(jsonDepthExceeds({ a: [] }, 1)).toBe(true);
    expect(jsonDepthExceeds({ a: [] }, 2)).toBe(false);
    expect(jsonDepthExceeds(nested(100_000), BODY_DEPTH_MAX)).toBe(true);
  });

  it(`When sessionData nests ${JSON_DEPTH_MAX} levels, then it is accepted; one more, 2,000 or 100,000 is a validation error, never a stack overflow`, () => {
    expect(UpdateSessionRequest.safeParse({ sessionData: { k: nested(JSON_DEPTH_MAX - 1) } }).success).toBe(true);
    for (const depth of [JSON_DEPTH_MAX, 2_000, 100_000]) {
      const result = UpdateSessionRequest.safeParse({ sessionData: { k: nested(depth) } });
      expect(result.success, `depth ${depth}`).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['sessionData']);
    }
  });

  it('When the deepest accepted sessionData rides in a completed event, then the event parses and serializes (the event the dispatcher lost)', () => {
    const sessionData = { k: nested(JSON_DEPTH_MAX - 1, 'leaf') };
    expect(SessionData.safeParse(sessionData).success).toBe(true);
    const event = completedEvent(sessionData);
    const roundTripped = JSON.parse(JSON.stringify(event)) as unknown;
    const parsed = SessionEventV1.safeParse(roundTripped);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it('When an event carries sessionData deeper than the limit, then the envelope check fails cleanly instead of throwing', () => {
    expect(() => SessionEventV1.safeParse(completedEvent({ k: nested(5_000) }))).not.toThrow();
    expect(SessionEventV1.safeParse(completedEvent({ k: nested(5_000) })).success).toBe(false);
  });
});

function completedEvent(sessionData: Record<string, unknown>) {
  const at = '2026-11-23T08:00:00.000Z';
  const order = {
    id: 'ord_test_abc',
    provider: 'native',
    currency: 'USD',
    status: 'completed',
    paymentStatus: 'paid',
    amounts: { subtotal: 100, tax: 0, discount: 0, tip: 0, total: 100, paid: 100, refunded: 0 },
    items: [{ id: 'item_1', name: 'n', quantity: 1, unitPrice: 100, totalPrice: 100, itemType: 'product' }],
    taxes: [],
    discounts: [],
    metadata: {},
    paidAt: at,
    createdAt: at,
    updatedAt: at,
  };
  const session = {
    id: 'cs_test_abc',
    url: 'http://127.0.0.1/checkout/cs_test_abc',
    status: 'completed',
    active: false,
    failedAttempts: 0,
    successUrl: null,
    callbackUrl: null,
    expiresAt: at,
    createdAt: at,
    updatedAt: at,
    requireFromCustomer: { phone: false, shippingAddress: false, location: false },
    sessionData,
    order,
  };
  return {
    version: 1,
    eventId: 'evt_test_abc',
    occurredAt: at,
    organizationId: 'org_1',
    mode: 'test',
    sessionId: 'cs_test_abc',
    callbackUrl: null,
    type: 'checkout.session.completed',
    body: { id: 'evt_test_abc', event: 'checkout.session.completed', createdAt: at, session },
  };
}
