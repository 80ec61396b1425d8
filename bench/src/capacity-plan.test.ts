import { describe, expect, it } from 'vitest';
import {
  brokersFor,
  capacityPlan,
  MIN_BROKERS,
  MIN_PODS,
  partitionsFor,
  podsFor,
  shardsFor,
  type Measured,
} from './capacity-plan';

const measured: Measured = {
  requestsPerSecond: 25,
  loadedCores: new Map([
    ['orders', 0.13],
    ['kafka', 0.1],
    ['mongo engine', 0.2],
  ]),
  idleCores: new Map([
    ['orders', 0.03],
    ['kafka', 0.05],
  ]),
};
const orders = { name: 'orders', process: 'orders', cpuRequest: 0.5 };

describe('the capacity plan', () => {
  it("sizes pods by the load's cores net of idle, over 60 % of the request less a pod's own idle burn", () => {
    // 0.1 core of load × 100 = 10 cores, over 0.3 − 0.03 = 0.27 a pod: 37.04 → 38.
    expect(podsFor(orders, measured, 100)).toBe(38);
    expect(podsFor(orders, measured, 1)).toBe(MIN_PODS);
  });

  it('sizes brokers by the replicated load and shards by the engine, each with its floor', () => {
    // 0.05 × 100 × 3 replicas = 15 cores over 1.2 a broker.
    expect(brokersFor(measured, 'kafka', 100)).toBe(13);
    expect(brokersFor(measured, 'kafka', 1)).toBe(MIN_BROKERS);
    // 0.2 × 100 = 20 cores over 4.8 a shard.
    expect(shardsFor(measured, 'mongo engine', 100)).toBe(5);
    expect(shardsFor(measured, 'mongo engine', 1)).toBe(1);
  });

  it('gives a topic partitions for the busiest Deployment reading it, in steps of 6, never fewer than today', () => {
    expect(partitionsFor(38, 6)).toBe(42);
    expect(partitionsFor(3, 12)).toBe(12);
    const plan = capacityPlan(measured, [orders], [{ topic: 'orders.events', consumers: ['orders'], partitions: 6 }], {
      kafka: 'kafka',
      mongo: 'mongo engine',
    });
    expect(plan.pods.get('orders')).toEqual([3, 4, 38]);
    expect(plan.partitions.get('orders.events')).toEqual([6, 6, 42]);
    expect(plan.text).toContain('Hyperswitch guide: router pods (15 req/s each)');
  });
});
