import { describe, expect, it } from 'vitest';
import { parseConfig } from './config';

// Refund notifications have a secret of their own (D48): sessions' payment-notification secret, which signed them
// before, is no setting of orders any more, so a configuration cannot make orders accept it.

const base = {
  MONGODB_URL: 'mongodb://127.0.0.1:27017/',
  KAFKA_BROKERS: '127.0.0.1:9092',
  INTERNAL_CALLERS: `gateway:${'ab12'.repeat(16)}`,
};
const REFUNDS = 'Zq3vN8kL2pX7mR4tW9yB6cF1hJ5dG0sA';
const PAYMENTS = 'Hx4mQ9wE2rT7yU1iO6pA3sD8fG5jK0lZ';

describe('orders config: the processor secret (D48)', () => {
  it("When only the release before's shared PROCESSOR_WEBHOOK_SECRET is set, then start-up is refused naming the refunds' own secret", () => {
    expect(() => parseConfig({ ...base, PROCESSOR_WEBHOOK_SECRET: PAYMENTS })).toThrow(
      /PROCESSOR_REFUND_WEBHOOK_SECRET/,
    );
  });

  it("When both are set (a configuration mid-migration), then only the refunds' own secret is read", () => {
    const config = parseConfig({
      ...base,
      PROCESSOR_REFUND_WEBHOOK_SECRET: REFUNDS,
      PROCESSOR_WEBHOOK_SECRET: PAYMENTS,
    });
    expect(config.PROCESSOR_REFUND_WEBHOOK_SECRET).toBe(REFUNDS);
    expect(config).not.toHaveProperty('PROCESSOR_WEBHOOK_SECRET');
  });
});
