import { describe, expect, it } from 'vitest';
import { webhookBodyJson } from './webhook-body';

describe('webhookBodyJson (D30, D49)', () => {
  it('When a body comes in any order, then it is written id, event, createdAt, session, then the rest', () => {
    const json = webhookBodyJson({ order: { id: 'ord_1' }, createdAt: 'c', event: 'e', id: 'evt_1' });
    expect(Object.keys(JSON.parse(json) as object)).toEqual(['id', 'event', 'createdAt', 'order']);
  });
});
