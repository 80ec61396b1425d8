import { describe, expect, it } from 'vitest';
import { zodIssuesToDetails } from './errors';
import {
  CreateOrderRequest,
  DiscountInput,
  ListOrdersQuery,
  Order,
  OrderListResponse,
  TaxInput,
  UpdateOrderRequest,
} from './orders';

const item = { name: 'T-shirt', quantity: 2, unitPrice: 1500 };
const minimal = { items: [item] };

function detailsOf(result: { success: boolean; error?: import('zod').ZodError }) {
  expect(result.success).toBe(false);
  return zodIssuesToDetails(result.error!);
}

describe('CreateOrderRequest', () => {
  it('When the body has one item, then it is accepted unchanged', () => {
    expect(CreateOrderRequest.parse(minimal)).toEqual(minimal);
  });

  it('When every field is given, then it is accepted', () => {
    const body = {
      items: [item],
      externalId: 'shop-order-42',
      taxes: [{ name: 'VAT', type: 'additive', amount: 300 }],
      discounts: [
        { name: 'Welcome', type: 'fixed', amount: 100 },
        { name: 'Sale', type: 'percentage', amount: 10 },
      ],
      customer: { email: 'jane@example.com', name: 'Jane', phone: '+14155550123' },
      shippingAddress: { line1: '1 Main St', city: 'Springfield', country: 'US' },
      locationId: 'loc_test_abc',
      paymentDestination: 'pd_test_abc',
      metadata: { 'cart.id': '123', $source: 'web' },
    };
    expect(CreateOrderRequest.parse(body)).toEqual(body);
  });

  it("When a body has an unknown field, then it is rejected at that field's path (D7)", () => {
    expect(detailsOf(CreateOrderRequest.safeParse({ ...minimal, colour: 'red' }))).toEqual([
      { path: 'colour', message: 'unknown field' },
    ]);
    expect(detailsOf(CreateOrderRequest.safeParse({ items: [{ ...item, sku: 'x' }] }))).toEqual([
      { path: 'items.0.sku', message: 'unknown field' },
    ]);
  });

  it.each([
    ['null customer', { ...minimal, customer: null }],
    ['null externalId', { ...minimal, externalId: null }],
    ['null item field', { items: [{ ...item, name: null }] }],
    ['null taxes', { ...minimal, taxes: null }],
  ])('When the body has a %s, then it is rejected (D7)', (_, body) => {
    expect(CreateOrderRequest.safeParse(body).success).toBe(false);
  });

  it.each([
    ['no items', { items: [] }],
    ['missing items', {}],
    ['101 items', { items: Array.from({ length: 101 }, () => item) }],
    ['quantity 0', { items: [{ ...item, quantity: 0 }] }],
    ['quantity 1,000,001', { items: [{ ...item, quantity: 1_000_001 }] }],
    ['fractional quantity', { items: [{ ...item, quantity: 1.5 }] }],
    ['quantity as a string', { items: [{ ...item, quantity: '2' }] }],
    ['negative unitPrice', { items: [{ ...item, unitPrice: -1 }] }],
    ['fractional unitPrice', { items: [{ ...item, unitPrice: 9.99 }] }],
    ['unsafe unitPrice', { items: [{ ...item, unitPrice: 2 ** 53 }] }],
    ['blank item name', { items: [{ ...item, name: '  ' }] }],
    ['item name of 251 characters', { items: [{ ...item, name: 'n'.repeat(251) }] }],
    ['missing unitPrice', { items: [{ name: 'x', quantity: 1 }] }],
  ])('When items have %s, then the body is rejected (D9)', (_, body) => {
    expect(CreateOrderRequest.safeParse(body).success).toBe(false);
  });

  it('When an item has 100 entries, quantity 1,000,000, unitPrice 0 and a 250-character name, then it is accepted (D9)', () => {
    const edge = { name: 'n'.repeat(250), quantity: 1_000_000, unitPrice: 0 };
    expect(CreateOrderRequest.safeParse({ items: Array.from({ length: 100 }, () => edge) }).success).toBe(true);
  });

  it('When externalId is empty or 256 characters, then it is rejected (D14)', () => {
    expect(CreateOrderRequest.safeParse({ ...minimal, externalId: '' }).success).toBe(false);
    expect(CreateOrderRequest.safeParse({ ...minimal, externalId: 'x'.repeat(256) }).success).toBe(false);
  });

  it('When locationId is malformed, then the failure points at locationId (D14, D7)', () => {
    const details = detailsOf(CreateOrderRequest.safeParse({ ...minimal, locationId: 'store-1' }));
    expect(details.map((d) => d.path)).toEqual(['locationId']);
  });

  it('When locationId is a well-formed id of the other mode, then the format is accepted (D14: not found later)', () => {
    expect(CreateOrderRequest.safeParse({ ...minimal, locationId: 'loc_live_abc' }).success).toBe(true);
  });

  it('When paymentDestination is malformed, then the failure points at paymentDestination (D15)', () => {
    const details = detailsOf(CreateOrderRequest.safeParse({ ...minimal, paymentDestination: 'wallet-1' }));
    expect(details.map((d) => d.path)).toEqual(['paymentDestination']);
  });

  it('When the body is not an object, then it is rejected', () => {
    for (const body of [null, [], 'x', 1]) expect(CreateOrderRequest.safeParse(body).success).toBe(false);
  });
});

describe('taxes (D9)', () => {
  it('When a tax omits its name, then it gets the label "Tax" (D9)', () => {
    expect(TaxInput.parse({ type: 'additive', amount: 5 })).toEqual({ name: 'Tax', type: 'additive', amount: 5 });
  });

  it.each([
    ['unknown type', { type: 'inclusive', amount: 5 }],
    ['negative amount', { type: 'additive', amount: -1 }],
    ['fractional amount', { type: 'additive', amount: 0.5 }],
    ['a rate', { type: 'additive', amount: 5, rate: 0.1 }],
    ['null name', { name: null, type: 'additive', amount: 5 }],
    ['missing type', { amount: 5 }],
  ])('When a tax has %s, then it is rejected (D9)', (_, value) => {
    expect(TaxInput.safeParse(value).success).toBe(false);
  });

  it('When a tax amount is 0, then it is accepted (D9)', () => {
    expect(TaxInput.safeParse({ type: 'additive', amount: 0 }).success).toBe(true);
  });

  it('When there are 20 taxes, then it is accepted; 21 are rejected (D9)', () => {
    const tax = { type: 'additive', amount: 1 };
    expect(CreateOrderRequest.safeParse({ ...minimal, taxes: Array(20).fill(tax) }).success).toBe(true);
    expect(CreateOrderRequest.safeParse({ ...minimal, taxes: Array(21).fill(tax) }).success).toBe(false);
  });
});

describe('discounts (D9)', () => {
  it('When a percentage discount sends rate, then it is normalised to amount (D9)', () => {
    expect(DiscountInput.parse({ name: 'Sale', type: 'percentage', rate: 10 })).toEqual({
      name: 'Sale',
      type: 'percentage',
      amount: 10,
    });
  });

  it('When a percentage discount sends amount, then it is kept (D9)', () => {
    expect(DiscountInput.parse({ name: 'Sale', type: 'percentage', amount: 100 })).toEqual({
      name: 'Sale',
      type: 'percentage',
      amount: 100,
    });
  });

  it('When a percentage discount sends both rate and amount, then it is rejected at rate (D9)', () => {
    const details = detailsOf(DiscountInput.safeParse({ name: 'Sale', type: 'percentage', rate: 10, amount: 10 }));
    expect(details).toEqual([{ path: 'rate', message: 'send either amount or rate, not both' }]);
  });

  it('When a percentage discount sends neither, then it is rejected at amount (D9)', () => {
    expect(detailsOf(DiscountInput.safeParse({ name: 'Sale', type: 'percentage' })).map((d) => d.path)).toEqual([
      'amount',
    ]);
  });

  it('When a fixed discount sends rate, then it is rejected (D9)', () => {
    expect(DiscountInput.safeParse({ name: 'Off', type: 'fixed', rate: 10 }).success).toBe(false);
    expect(DiscountInput.safeParse({ name: 'Off', type: 'fixed', amount: 10, rate: 10 }).success).toBe(false);
  });

  it.each([
    ['fixed amount 0', { name: 'x', type: 'fixed', amount: 0 }],
    ['percentage 0', { name: 'x', type: 'percentage', amount: 0 }],
    ['percentage 101', { name: 'x', type: 'percentage', amount: 101 }],
    ['fractional percentage', { name: 'x', type: 'percentage', amount: 12.5 }],
    ['fractional rate', { name: 'x', type: 'percentage', rate: 0.1 }],
    ['missing name', { type: 'fixed', amount: 1 }],
    ['unknown type', { name: 'x', type: 'bogo', amount: 1 }],
    ['null rate', { name: 'x', type: 'percentage', amount: 10, rate: null }],
  ])('When a discount has %s, then it is rejected (D9)', (_, value) => {
    expect(DiscountInput.safeParse(value).success).toBe(false);
  });

  it('When discounts are nested in an order, then the error path is the discount field (D6)', () => {
    const details = detailsOf(
      CreateOrderRequest.safeParse({ ...minimal, discounts: [{ name: 'x', type: 'fixed', amount: 0 }] }),
    );
    expect(details.map((d) => d.path)).toEqual(['discounts.0.amount']);
  });
});

describe('UpdateOrderRequest', () => {
  it('When the body is empty, then it is accepted (every field optional)', () => {
    expect(UpdateOrderRequest.parse({})).toEqual({});
  });

  it('When externalId is sent, then it is rejected at externalId (D8)', () => {
    expect(detailsOf(UpdateOrderRequest.safeParse({ externalId: 'new' }))).toEqual([
      { path: 'externalId', message: 'unknown field' },
    ]);
  });

  it('When taxes and discounts are empty arrays, then they are accepted (clearing them)', () => {
    expect(UpdateOrderRequest.parse({ taxes: [], discounts: [] })).toEqual({ taxes: [], discounts: [] });
  });

  it('When items is an empty array, then it is rejected (at least 1 when provided)', () => {
    expect(UpdateOrderRequest.safeParse({ items: [] }).success).toBe(false);
  });

  it('When the customer has no email, then it is accepted (D11 merge)', () => {
    expect(UpdateOrderRequest.parse({ customer: { phone: '+14155550123' } })).toEqual({
      customer: { phone: '+14155550123' },
    });
  });

  it('When metadata is {}, then it is accepted (D36)', () => {
    expect(UpdateOrderRequest.parse({ metadata: {} })).toEqual({ metadata: {} });
  });

  it.each([
    ['locationId', 'loc_test_abc'],
    ['paymentDestination', 'pd_test_abc'],
    ['provider', 'native'],
  ])('When %s is sent, then it is rejected: PATCH accepts only the spec fields (D7)', (key, value) => {
    expect(UpdateOrderRequest.safeParse({ [key]: value }).success).toBe(false);
  });

  it('When a field is null, then it is rejected (D7)', () => {
    expect(UpdateOrderRequest.safeParse({ shippingAddress: null }).success).toBe(false);
    expect(UpdateOrderRequest.safeParse({ metadata: null }).success).toBe(false);
  });
});

describe('ListOrdersQuery (D20)', () => {
  it('When no parameter is given, then page 1 and limit 20 are used', () => {
    expect(ListOrdersQuery.parse({})).toEqual({ page: 1, limit: 20 });
  });

  it('When every filter is given, then they are parsed', () => {
    expect(
      ListOrdersQuery.parse({
        page: '2',
        limit: '50',
        status: 'open',
        paymentStatus: 'unpaid',
        provider: 'native',
        locationId: 'loc_test_abc',
      }),
    ).toEqual({
      page: 2,
      limit: 50,
      status: 'open',
      paymentStatus: 'unpaid',
      provider: 'native',
      locationId: 'loc_test_abc',
    });
  });

  it('When limit is empty (?limit=), then it is a bad value, not an absent one (D7, D20)', () => {
    expect(detailsOf(ListOrdersQuery.safeParse({ limit: '' })).map((d) => d.path)).toEqual(['limit']);
  });

  it.each([
    ['status', 'paid'],
    ['paymentStatus', 'PAID'],
    ['provider', 'shopify'],
    ['locationId', 'loc_123'],
    ['page', '0'],
    ['limit', '101'],
    ['sort', 'asc'],
  ])('When %s is %j, then the query is rejected (D20, D7)', (key, value) => {
    expect(ListOrdersQuery.safeParse({ [key]: value }).success).toBe(false);
  });
});

describe('Order response (D18, D19, D39)', () => {
  const order = {
    id: 'ord_test_abc',
    provider: 'native',
    currency: 'USD',
    status: 'open',
    paymentStatus: 'unpaid',
    amounts: { subtotal: 3097, tax: 0, discount: 310, tip: 0, total: 2787, paid: 0, refunded: 0 },
    items: [{ id: 'item_x', name: 'A', quantity: 1, unitPrice: 3097, totalPrice: 3097, itemType: 'product' }],
    taxes: [{ id: 'tax_x', name: 'Tax', type: 'additive', amount: 0, rate: null, scope: 'order' }],
    discounts: [{ id: 'disc_x', name: 'Ten', type: 'percentage', amount: 10, scope: 'order' }],
    metadata: {},
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:00:00.000Z',
  };

  it('When optional fields are unset, then the order is valid without them (D39)', () => {
    expect(Order.parse(order)).toEqual(order);
  });

  it('When a reader gets a field it does not know, then it drops it instead of failing (tolerant reader)', () => {
    expect(Order.parse({ ...order, organizationId: 'org_1' })).toEqual(order);
  });

  it('When an order from before refunds carries no amounts.refunded, then it reads as 0 refunded (D48, tolerant reader)', () => {
    const { refunded: _refunded, ...before } = order.amounts;
    expect(Order.parse({ ...order, amounts: before }).amounts.refunded).toBe(0);
    expect(Order.safeParse({ ...order, amounts: { ...before, refunded: -1 } }).success).toBe(false);
  });

  it('When a tax has a non-null rate, then the response is invalid; a stray discount rate is dropped (D9)', () => {
    expect(Order.safeParse({ ...order, taxes: [{ ...order.taxes[0], rate: 0.1 }] }).success).toBe(false);
    const parsed = Order.parse({ ...order, discounts: [{ ...order.discounts[0], rate: 10 }] });
    expect(parsed.discounts[0]).not.toHaveProperty('rate');
  });

  it('When a list is returned, then it carries orders and pagination', () => {
    const list = { orders: [order], pagination: { page: 1, limit: 20, total: 1, hasMore: false } };
    expect(OrderListResponse.parse(list)).toEqual(list);
  });

  it('When an amount exceeds 999,999,999,999, then the response is invalid (D10)', () => {
    expect(Order.safeParse({ ...order, amounts: { ...order.amounts, total: 1_000_000_000_000 } }).success).toBe(false);
  });
});
