import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, signatureHeaders } from './signature';

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
    const headers = signatureHeaders({ secret: 'whsec_c2VjcmV0LWtleS1ieXRlcw==', id: 'evt_test_1', timestamp: 1700000000, body: '{}' });
    expect(headers['webhook-id']).toBe('evt_test_1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update('evt_test_1.1700000000.{}').digest('base64')}`);
  });
});
