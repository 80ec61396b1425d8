import { describe, expect, it } from 'vitest';
import { valueInExposition } from './metrics';

// The one reader of /metrics the tests and the bench share: a sample by name and labels.
const TEXT = [
  '# HELP webhook_deliveries_total Deliveries by outcome',
  '# TYPE webhook_deliveries_total counter',
  'webhook_deliveries_total{outcome="succeeded",tier="0"} 3',
  'webhook_deliveries_total{outcome="succeeded",tier="1"} 2',
  'webhook_deliveries_total{outcome="failed",tier="0"} 7',
  '# HELP process_resident_memory_bytes Resident memory size in bytes.',
  '# TYPE process_resident_memory_bytes gauge',
  'process_resident_memory_bytes 1.2e+08',
  '# HELP webhook_attempts_deferred_total Attempts put off',
  '# TYPE webhook_attempts_deferred_total counter',
  '# HELP outbox_publish_delay_seconds Write to acknowledgement, by path',
  '# TYPE outbox_publish_delay_seconds histogram',
  'outbox_publish_delay_seconds_bucket{le="0.005",path="fast"} 4',
  'outbox_publish_delay_seconds_sum{path="fast"} 0.04',
  'outbox_publish_delay_seconds_count{path="fast"} 12',
].join('\n');

describe('valueInExposition', () => {
  it('When several samples match the labels, then their sum is returned', () => {
    expect(valueInExposition(TEXT, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(5);
    expect(valueInExposition(TEXT, 'webhook_deliveries_total', { outcome: 'failed', tier: '0' })).toBe(7);
  });

  it('When the sample has no labels, then its value is read, exponent included', () => {
    expect(valueInExposition(TEXT, 'process_resident_memory_bytes')).toBe(120_000_000);
  });

  it('When the family is declared without a matching sample, then it reads 0; when it is not declared, then it is an error', () => {
    expect(valueInExposition(TEXT, 'webhook_attempts_deferred_total', { reason: 'signing_secret_unavailable' })).toBe(
      0,
    );
    expect(valueInExposition(TEXT, 'webhook_deliveries_total', { outcome: 'unknown' })).toBe(0);
    expect(() => valueInExposition(TEXT, 'webhook_delivery_total')).toThrow(
      /declares no metric webhook_delivery_total/,
    );
  });

  it("When a histogram's count is asked for, then it is read under the histogram's declaration; a path never observed reads 0", () => {
    expect(valueInExposition(TEXT, 'outbox_publish_delay_seconds_count', { path: 'fast' })).toBe(12);
    expect(valueInExposition(TEXT, 'outbox_publish_delay_seconds_count', { path: 'sweep' })).toBe(0);
    expect(() => valueInExposition(TEXT, 'outbox_publish_delay_count')).toThrow(/declares no metric/);
  });
});
