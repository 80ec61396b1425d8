import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contracts from './index';

// The gateway builds its OpenAPI document from these schemas, so every exported one must convert. Request
// schemas (with defaults and normalising transforms) are described by what a client sends (io: 'input');
// response schemas have no transforms and must convert both ways.

const exported: Record<string, unknown> = { ...contracts };
const schemas = Object.entries(exported).filter((entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType);

const RESPONSES = [
  'Order',
  'OrderItem',
  'OrderTax',
  'OrderDiscount',
  'OrderCustomer',
  'Amounts',
  'OrderResponse',
  'OrderListResponse',
  'Pagination',
  'CheckoutSession',
  'SessionResponse',
  'WebhookEvent',
  'EventResponse',
  'EventListResponse',
  'RedeliverResponse',
  'RecoverEventsResponse',
  'ErrorBody',
  'SessionEventV1',
];

describe('JSON Schema conversion', () => {
  it('When the exports are scanned, then every request and response schema is among them', () => {
    const names = schemas.map(([name]) => name);
    for (const name of [
      ...RESPONSES,
      'CreateOrderRequest',
      'UpdateOrderRequest',
      'ListOrdersQuery',
      'CreateSessionRequest',
      'UpdateSessionRequest',
      'PayRequest',
      'ListEventsQuery',
      'RecoverEventsRequest',
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(schemas)('When %s is converted with io "input", then it does not throw', (_, schema) => {
    const json = z.toJSONSchema(schema, { io: 'input' });
    expect(JSON.parse(JSON.stringify(json))).toBeTypeOf('object');
  });

  it.each(RESPONSES)('When response %s is converted with io "output", then it does not throw', (name) => {
    const schema = exported[name] as z.ZodType;
    expect(() => z.toJSONSchema(schema, { io: 'output' })).not.toThrow();
  });

  it('When the whole registry is converted, then named schemas become reusable components', () => {
    const { schemas: components } = z.toJSONSchema(z.globalRegistry, {
      io: 'input',
      uri: (id) => `#/components/schemas/${id}`,
    });
    expect(Object.keys(components)).toEqual(expect.arrayContaining(['Order', 'CheckoutSession', 'CreateOrderRequest']));
  });

  it('When a request with a rate alias is described, then both amount and rate appear for clients (D9)', () => {
    const json = JSON.stringify(z.toJSONSchema(contracts.DiscountInput, { io: 'input' }));
    expect(json).toContain('"rate"');
    expect(json).toContain('"additionalProperties":false');
  });
});
