import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, WebhookEvent } from './event-catalog';
import { breakingChanges, eventBodyJsonSchema, type JsonSchema } from './json-schema';

// D49: event bodies are a contract. libs/contracts/schemas/events/<type>.json is what merchants' consumers were
// built against; a change to a body that would break one of them (a field removed or renamed, a type changed, a
// new required field) fails here, as the message fixtures guard rolling deploys (docs/engineering.md).

const DIR = fileURLToPath(new URL('../schemas/events/', import.meta.url));
const committed = (type: string): JsonSchema => JSON.parse(readFileSync(`${DIR}/${type}.json`, 'utf8')) as JsonSchema;

describe('the committed event schemas (D49)', () => {
  it.each(EVENT_TYPES)('When %s is in the catalog, then its schema is committed', (type) => {
    expect(existsSync(`${DIR}/${type}.json`), `run npm run event-schemas and commit ${type}.json`).toBe(true);
  });

  it.each(EVENT_TYPES)(
    "When %s's body is compared with its committed schema, then no existing consumer breaks",
    (type) => {
      expect(breakingChanges(committed(type), eventBodyJsonSchema(type))).toEqual([]);
    },
  );

  it.each(EVENT_TYPES)('When %s is compatible, then the committed schema is the current one', (type) => {
    // A compatible change (a new optional field, a description) is committed too: the file is the contract.
    expect(eventBodyJsonSchema(type), 'run npm run event-schemas and commit the file').toEqual(committed(type));
  });

  it('When a schema is committed, then its type is still in the catalog: consumers subscribed to it keep hearing of it', () => {
    const files = readdirSync(DIR).map((name) => name.replace(/\.json$/, ''));
    expect([...files].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('When a schema is read, then it describes the body the API validates: a sample body has every required field', () => {
    const schema = committed('checkout.session.completed') as { $ref: string; $defs: Record<string, JsonSchema> };
    const root = schema.$defs[schema.$ref.replace('#/$defs/', '')] as { required: string[] };
    expect(root.required).toEqual(['id', 'createdAt', 'event', 'session']);
    expect(WebhookEvent.options.map((option) => option.shape.event.value)).toEqual([...EVENT_TYPES]);
  });

  it('When the committed schema loses a field of the order, then the check names it: the guard is not vacuous', () => {
    const changed = structuredClone(committed('checkout.session.completed')) as {
      $defs: { Amounts: { properties: Record<string, unknown>; required: string[] } };
    };
    delete changed.$defs.Amounts.properties.paid;
    changed.$defs.Amounts.required = changed.$defs.Amounts.required.filter((name) => name !== 'paid');
    expect(breakingChanges(committed('checkout.session.completed'), changed as unknown as JsonSchema)).toEqual([
      'session.order.amounts.paid: removed',
    ]);
  });
});

describe('breakingChanges', () => {
  const body = (properties: Record<string, unknown>, required: string[], defs: Record<string, unknown> = {}) =>
    ({ type: 'object', properties, required, $defs: defs }) as JsonSchema;
  const base = body(
    {
      id: { type: 'string' },
      amount: { type: 'integer' },
      status: { type: 'string', enum: ['pending', 'succeeded'] },
      note: { type: 'string' },
      order: { $ref: '#/$defs/Order' },
      lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    },
    ['id', 'amount', 'status', 'order', 'lines'],
    { Order: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] } },
  );
  const changed = (mutate: (schema: Record<string, any>) => void): JsonSchema => {
    const copy = structuredClone(base) as Record<string, any>;
    mutate(copy);
    return copy;
  };

  it.each([
    [
      'a field removed',
      changed((s) => {
        delete s.properties.amount;
        s.required = s.required.filter((n: string) => n !== 'amount');
      }),
      ['amount: removed'],
    ],
    [
      'a field renamed',
      changed((s) => {
        s.properties.total = s.properties.amount;
        delete s.properties.amount;
        s.required = [...s.required.filter((n: string) => n !== 'amount'), 'total'];
      }),
      ['amount: removed', 'total: new required field'],
    ],
    [
      'a type changed',
      changed((s) => {
        s.properties.amount = { type: 'string' };
      }),
      ['amount: type changed from number to string'],
    ],
    [
      'null allowed where it was not',
      changed((s) => {
        s.properties.id = { anyOf: [{ type: 'string' }, { type: 'null' }] };
      }),
      ['id: type changed from string to null | string'],
    ],
    [
      'a new required field',
      changed((s) => {
        s.properties.currency = { type: 'string' };
        s.required.push('currency');
      }),
      ['currency: new required field'],
    ],
    [
      'a required field made optional',
      changed((s) => {
        s.required = s.required.filter((n: string) => n !== 'id');
      }),
      ['id: no longer always present'],
    ],
    [
      'an optional field made required',
      changed((s) => {
        s.required.push('note');
      }),
      ['note: new required field'],
    ],
    [
      'an enum value removed',
      changed((s) => {
        s.properties.status.enum = ['pending'];
      }),
      ['status: value "succeeded" removed'],
    ],
    [
      'a field of a referenced definition removed',
      changed((s) => {
        s.$defs.Order.properties = {};
        s.$defs.Order.required = [];
      }),
      ['order.total: removed'],
    ],
    [
      'a field inside array items changed',
      changed((s) => {
        s.properties.lines.items.properties.sku = { type: 'number' };
      }),
      ['lines[].sku: type changed from string to number'],
    ],
  ])('When %s, then it is breaking', (_, next, expected) => {
    expect(breakingChanges(base, next)).toEqual(expected);
  });

  it.each([
    [
      'a new optional field',
      changed((s) => {
        s.properties.refunded = { type: 'integer' };
      }),
    ],
    [
      'a new enum value',
      changed((s) => {
        s.properties.status.enum = ['pending', 'succeeded', 'failed'];
      }),
    ],
    [
      'a description',
      changed((s) => {
        s.properties.id.description = 'The id.';
      }),
    ],
    ['nothing', base],
  ])('When %s, then nothing breaks', (_, next) => {
    expect(breakingChanges(base, next)).toEqual([]);
  });
});
