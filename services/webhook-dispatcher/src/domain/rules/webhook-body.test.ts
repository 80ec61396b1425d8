import { describe, expect, it } from 'vitest';
import { attemptHeaders, webhookBodyJson } from './webhook-body';

describe('webhookBodyJson (D30, D49)', () => {
  it('When a body comes in any order, then it is written id, event, createdAt, session, then the rest', () => {
    const json = webhookBodyJson({ order: { id: 'ord_1' }, createdAt: 'c', event: 'e', id: 'evt_1' });
    expect(Object.keys(JSON.parse(json) as object)).toEqual(['id', 'event', 'createdAt', 'order']);
  });
});

describe('attemptHeaders (D2, D35)', () => {
  const input = { eventId: 'evt_1', deliveryId: 'dlv_test_1', eventType: 'checkout.session.completed', body: '{}' };

  it('When there is no secret, then the attempt carries the delivery headers only', () => {
    const headers = attemptHeaders({ ...input, secrets: [], timestamp: 1_700_000_000 });
    expect(headers['x-service-delivery-id']).toBe('dlv_test_1');
    expect(headers['webhook-signature']).toBeUndefined();
  });

  it('When there are secrets, then the attempt is signed by each, and an empty one throws', () => {
    const secret = `whsec_${Buffer.from('k'.repeat(24)).toString('base64')}`;
    const headers = attemptHeaders({ ...input, secrets: [secret], timestamp: 1_700_000_000 });
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(() => attemptHeaders({ ...input, secrets: ['whsec_'], timestamp: 1 })).toThrow();
  });
});
