import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkWebhookSignature, signWebhook, webhookHeaders } from './webhooks';

describe('signWebhook (D35, Standard Webhooks)', () => {
  // The example of the Standard Webhooks specification.
  it('When signing the specification example, then the signature matches the published one', () => {
    const signature = signWebhook({
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('When headers are built, then they carry id, timestamp and a verifiable signature', () => {
    const key = Buffer.from('c2VjcmV0LWtleS1ieXRlcw==', 'base64');
    const headers = webhookHeaders({
      secrets: ['whsec_c2VjcmV0LWtleS1ieXRlcw=='],
      eventId: 'evt_test_1',
      deliveryId: 'dlv_test_1',
      eventType: 'checkout.session.completed',
      timestamp: 1700000000,
      body: '{}',
    });
    expect(headers['webhook-id']).toBe('evt_test_1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key).update('evt_test_1.1700000000.{}').digest('base64')}`,
    );
  });
});

describe('webhookHeaders (D2, D35)', () => {
  const input = { eventId: 'evt_1', deliveryId: 'dlv_test_1', eventType: 'checkout.session.completed', body: '{}' };

  it('When there is no secret, then the attempt carries the delivery headers only', () => {
    const headers = webhookHeaders({ ...input, secrets: [], timestamp: 1_700_000_000 });
    expect(headers['x-service-delivery-id']).toBe('dlv_test_1');
    expect(headers['idempotency-key']).toBe('evt_1');
    expect(headers['webhook-signature']).toBeUndefined();
  });

  it('When there are secrets, then the attempt is signed by each, and an empty one throws', () => {
    const secret = `whsec_${Buffer.from('k'.repeat(24)).toString('base64')}`;
    const other = `whsec_${Buffer.from('o'.repeat(24)).toString('base64')}`;
    const headers = webhookHeaders({ ...input, secrets: [secret, other], timestamp: 1_700_000_000 });
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']?.split(' ')).toEqual([
      signWebhook({ secret, id: 'evt_1', timestamp: 1_700_000_000, body: '{}' }),
      signWebhook({ secret: other, id: 'evt_1', timestamp: 1_700_000_000, body: '{}' }),
    ]);
    expect(() => webhookHeaders({ ...input, secrets: ['whsec_'], timestamp: 1 })).toThrow();
  });
});

describe('checkWebhookSignature (D35)', () => {
  const secret = 'whsec_c2VjcmV0LWtleS1ieXRlcw==';
  const body = '{"id":"evt_test_1"}';
  const signed = webhookHeaders({
    secrets: [secret],
    eventId: 'evt_test_1',
    deliveryId: 'dlv_test_1',
    eventType: 'checkout.session.completed',
    timestamp: 1700000000,
    body,
  });
  const check = (overrides: Partial<Parameters<typeof checkWebhookSignature>[0]> = {}) =>
    checkWebhookSignature({
      secret,
      body,
      id: signed['webhook-id'],
      timestamp: signed['webhook-timestamp'],
      signature: signed['webhook-signature'],
      nowSeconds: 1700000010,
      ...overrides,
    });

  it('When the body and headers are as signed, then the check passes', () => {
    expect(check()).toEqual({ ok: true });
  });

  it('When one of several rotated signatures matches, then the check passes', () => {
    expect(check({ signature: `v1,AAAA ${signed['webhook-signature']}` })).toEqual({ ok: true });
  });

  it('When the body was changed, then the signature is invalid', () => {
    expect(check({ body: '{"id":"evt_test_2"}' })).toEqual({ ok: false, reason: 'invalid signature' });
  });

  it('When the timestamp is older than the tolerance, then the check fails', () => {
    expect(check({ nowSeconds: 1700000000 + 301 })).toEqual({ ok: false, reason: 'timestamp outside tolerance' });
  });

  it('When a header is missing, then the check fails', () => {
    expect(check({ signature: undefined })).toEqual({ ok: false, reason: 'missing headers' });
  });
});
