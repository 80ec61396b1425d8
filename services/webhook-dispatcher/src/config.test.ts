import { describe, expect, it } from 'vitest';
import { ConfigError } from '@checkout/config';
import { parseConfig, schedulerLimits } from './config';

const base = {
  MONGODB_URL: 'mongodb://127.0.0.1:27017/',
  KAFKA_BROKERS: '127.0.0.1:9092',
  INTERNAL_TOKEN: 'Zq3vN8kL2pX7mR4tW9yB6cF1hJ5dG0sA',
  INTERNAL_CALLERS: `gateway:${'ab12'.repeat(16)}`,
};

describe('webhook-dispatcher config', () => {
  it('When only the required keys are set, then the defaults follow the spec (D31, D33)', () => {
    const config = parseConfig(base);
    expect(config).toMatchObject({
      PORT: 4004,
      MONGODB_DATABASE: 'webhooks',
      WEBHOOK_RETRY_DELAYS_MS: [10_000, 60_000, 600_000, 3_600_000],
      WEBHOOK_TIMEOUT_MS: 5_000,
      WEBHOOK_MAX_ATTEMPTS: 5,
      WEBHOOK_ALLOWED_NETWORKS: [],
      WEBHOOK_DENIED_NETWORKS: [],
      WEBHOOK_RESPONSE_SNIPPET_BYTES: 1024,
      API_ENABLED: true,
      CONSUMERS_ENABLED: true,
      SWEEPERS_ENABLED: true,
      SESSION_EVENTS_PARTITIONS: 12,
    });
    expect(config.GATEWAY_URL).toBeUndefined();
  });

  it('When values are given, then they are parsed', () => {
    const config = parseConfig({
      ...base,
      WEBHOOK_RETRY_DELAYS_MS: '50,100,150,200',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32, fd00::/8',
      WEBHOOK_DENIED_NETWORKS: '34.118.224.0/20',
      CONSUMERS_ENABLED: 'false',
    });
    expect(config.WEBHOOK_DENIED_NETWORKS).toEqual(['34.118.224.0/20']);
    expect(config.WEBHOOK_RETRY_DELAYS_MS).toEqual([50, 100, 150, 200]);
    expect(config.WEBHOOK_ALLOWED_NETWORKS).toEqual(['127.0.0.1/32', 'fd00::/8']);
    expect(config.CONSUMERS_ENABLED).toBe(false);
  });

  it.each([
    ['WEBHOOK_RETRY_DELAYS_MS', '100,50,150,200'],
    ['WEBHOOK_RETRY_DELAYS_MS', '10,20,30'],
    ['WEBHOOK_RETRY_DELAYS_MS', '10,20,x,40'],
    ['WEBHOOK_ALLOWED_NETWORKS', '127.0.0.1'],
    ['WEBHOOK_DENIED_NETWORKS', '34.118.224.0'],
    ['WEBHOOK_MAX_ATTEMPTS', '6'],
    ['WEBHOOK_CLAIM_TTL_MS', '1000'],
    ['GATEWAY_URL', 'ftp://gateway'],
  ])('When %s=%s, then startup stops naming the key', (key, value) => {
    expect(() => parseConfig({ ...base, [key]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, [key]: value })).toThrow(key);
  });

  it('When the totals and shares are the defaults, then one merchant holds half of each, test mode never takes the live quarter, and one webhook endpoint half of its host (D50), and one address twice the slots of a host', () => {
    expect(schedulerLimits(parseConfig(base))).toEqual({
      maxInFlight: 256,
      maxPerHost: 8,
      maxPerAddress: 16,
      maxPerDestination: 4,
      maxQueuedPerHost: 2_000,
      maxQueued: 5_000,
      maxInFlightPerLane: 128,
      maxQueuedPerLane: 2_500,
      liveReservedInFlight: 64,
      liveReservedQueued: 1_250,
    });
  });

  it('When the totals are tiny, then every share is at least one and test mode keeps a slot', () => {
    const limits = schedulerLimits(
      parseConfig({ ...base, WEBHOOK_MAX_IN_FLIGHT: '1', WEBHOOK_MAX_QUEUED: '2', WEBHOOK_LIVE_RESERVED_SHARE: '0.9' }),
    );
    expect(limits).toMatchObject({
      maxInFlightPerLane: 1,
      maxQueuedPerLane: 1,
      liveReservedInFlight: 0,
      liveReservedQueued: 1,
    });
  });
});
