import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CreateWebhookEndpointRequest, EnabledEvents } from './webhook-endpoints';

describe('enabledEvents (D50)', () => {
  it('When the JSON Schema is generated, then it states that "*" stands alone: exactly ["*"], or catalog types', () => {
    type ArraySchema = { $ref?: string; maxItems?: number; items?: { const?: string; enum?: string[] } };
    const schema = z.toJSONSchema(EnabledEvents, { io: 'input', unrepresentable: 'any' }) as {
      anyOf: ArraySchema[];
      $defs?: Record<string, ArraySchema>;
    };
    // Both alternatives are named components (code generators see one type each): follow their references.
    const resolved = schema.anyOf.map((part) => (part.$ref ? schema.$defs?.[part.$ref.split('/').pop()!] : part));
    expect(resolved).toHaveLength(2);
    expect(resolved[0]).toMatchObject({ items: { const: '*' }, minItems: 1, maxItems: 1 });
    expect(resolved[1]?.items?.enum).toBeDefined();
    expect(resolved[1]?.items?.enum).not.toContain('*');
  });

  it.each([[['*', 'order.paid']], [['*', '*']]])(
    'When enabledEvents is %j, then the refusal says "*" stands alone',
    (enabledEvents) => {
      const result = CreateWebhookEndpointRequest.safeParse({ url: 'https://merchant.example/hooks', enabledEvents });
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
        ['enabledEvents', '"*" stands alone: it already means every event type'],
      ]);
    },
  );

  it('When the list repeats types out of order, then it is kept once each in catalog order; ["*"] stays', () => {
    expect(EnabledEvents.parse(['order.paid', 'order.created', 'order.paid'])).toEqual(['order.created', 'order.paid']);
    expect(EnabledEvents.parse(['*'])).toEqual(['*']);
  });
});
