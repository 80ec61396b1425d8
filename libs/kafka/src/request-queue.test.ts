import RequestQueue from 'kafkajs/src/network/requestQueue/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { mendRequestQueueTimers } from './request-queue';

interface Queue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  maybeThrottle(ms: number): void;
  push(request: unknown): void;
  destroy(): void;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const queues: Queue[] = [];
function newQueue(): Queue {
  const Constructor = RequestQueue as unknown as new (options: object) => Queue;
  const queue = new Constructor({
    maxInFlightRequests: 1,
    requestTimeout: 1_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: silent,
  });
  queues.push(queue);
  return queue;
}
/** A request the queue may send (it never writes to a socket here: sendRequest is ours). */
const request = (correlationId: number) => ({
  entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11 },
  expectResponse: true,
  sendRequest: () => {},
});

afterEach(() => {
  for (const queue of queues.splice(0)) {
    if (queue.throttleCheckTimeoutId) clearTimeout(queue.throttleCheckTimeoutId);
  }
});

describe('kafkajs request queue timers (mended)', () => {
  mendRequestQueueTimers();

  it('When nothing waits and nothing is throttled, then a check leaves no timer behind (kafkajs 2.2.4 rescheduled itself every 1 ms)', () => {
    const queue = newQueue();
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('When a request waits behind the in-flight limit, then a recheck is scheduled until it is sent', () => {
    const queue = newQueue();
    queue.push(request(1));
    queue.push(request(2));
    expect(queue.pending).toHaveLength(1);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  });

  it('When the broker throttles the client, then the check is scheduled for when the throttle ends, even with nothing waiting', () => {
    const queue = newQueue();
    queue.maybeThrottle(5_000);
    queue.checkPendingRequests();
    const timer = queue.throttleCheckTimeoutId as unknown as { _idleTimeout: number } | null;
    expect(timer?._idleTimeout).toBeGreaterThan(4_000);
  });
});
