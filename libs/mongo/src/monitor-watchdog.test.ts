import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MongoClient } from 'mongodb';
import { heartbeatBoundMs, watchServerMonitors, type MonitorWatchdogOptions } from './monitor-watchdog';

// The watchdog's decisions on the driver's heartbeat events, with a stand-in client and fake time; the real
// wedge on the real engine is libs/mongo/test/monitor-recovery.test.ts.

class FakeClient extends EventEmitter {
  closes = 0;
  connects = 0;
  failConnects = 0;
  async close(): Promise<void> {
    this.closes++;
  }
  async connect(): Promise<this> {
    this.connects++;
    if (this.failConnects > 0) {
      this.failConnects--;
      throw new Error('server selection timed out');
    }
    return this;
  }
}

const OPTIONS = {
  connectTimeoutMS: 3_000,
  heartbeatFrequencyMS: 10_000,
  graceMs: 5_000,
  checkEveryMs: 1_000,
} satisfies MonitorWatchdogOptions;
const POLLED_LIMIT_MS = heartbeatBoundMs(OPTIONS, false) + OPTIONS.graceMs;
const AWAITED_LIMIT_MS = heartbeatBoundMs(OPTIONS, true) + OPTIONS.graceMs;

let client: FakeClient;
const asMongoClient = (fake: FakeClient) => fake as unknown as MongoClient;

beforeEach(() => {
  vi.useFakeTimers();
  client = new FakeClient();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Server monitor watchdog', () => {
  it('When a polled heartbeat has not ended past the driver bound plus grace, then it reports the stall and closes and reconnects the client once', async () => {
    const stalls: { address: string; stalledMs: number }[] = [];
    const watchdog = watchServerMonitors(asMongoClient(client), {
      ...OPTIONS,
      onStalled: (stall) => stalls.push(stall),
    });
    client.emit('serverHeartbeatStarted', { connectionId: '127.0.0.1:27017', awaited: false });

    await vi.advanceTimersByTimeAsync(POLLED_LIMIT_MS);
    expect(client.closes).toBe(0);

    await vi.advanceTimersByTimeAsync(OPTIONS.checkEveryMs);
    expect(stalls).toEqual([{ address: '127.0.0.1:27017', stalledMs: expect.any(Number) }]);
    expect(stalls[0]?.stalledMs).toBeGreaterThan(POLLED_LIMIT_MS);
    expect(client.closes).toBe(1);
    expect(client.connects).toBe(1);

    // The stalled heartbeat is forgotten with the old topology: no second reconnect for it.
    await vi.advanceTimersByTimeAsync(2 * POLLED_LIMIT_MS);
    expect(client.closes).toBe(1);
    await watchdog.stop();
  });

  it('When heartbeats end within the bound (failed ones too), then the client is left alone', async () => {
    const watchdog = watchServerMonitors(asMongoClient(client), OPTIONS);
    for (let i = 0; i < 5; i++) {
      client.emit('serverHeartbeatStarted', { connectionId: 'a:1', awaited: false });
      await vi.advanceTimersByTimeAsync(POLLED_LIMIT_MS - 1_000);
      client.emit(i % 2 === 0 ? 'serverHeartbeatSucceeded' : 'serverHeartbeatFailed', { connectionId: 'a:1' });
    }
    await vi.advanceTimersByTimeAsync(10 * POLLED_LIMIT_MS);
    expect(client.closes).toBe(0);
    await watchdog.stop();
  });

  it('When a streamed (awaited) heartbeat waits out maxAwaitTimeMS, then that is no stall; past its own bound it is', async () => {
    const watchdog = watchServerMonitors(asMongoClient(client), OPTIONS);
    client.emit('serverHeartbeatStarted', { connectionId: 'a:1', awaited: true });
    await vi.advanceTimersByTimeAsync(AWAITED_LIMIT_MS);
    expect(client.closes).toBe(0);
    await vi.advanceTimersByTimeAsync(OPTIONS.checkEveryMs);
    expect(client.closes).toBe(1);
    await watchdog.stop();
  });

  it('When the server leaves the topology mid-heartbeat, then its unfinished heartbeat is no stall', async () => {
    const watchdog = watchServerMonitors(asMongoClient(client), OPTIONS);
    client.emit('serverHeartbeatStarted', { connectionId: 'a:1', awaited: false });
    client.emit('serverClosed', { address: 'a:1' });
    await vi.advanceTimersByTimeAsync(10 * POLLED_LIMIT_MS);
    expect(client.closes).toBe(0);
    await watchdog.stop();
  });

  it('When reconnecting fails (the server is down again), then it retries every second until it connects', async () => {
    const recoveries: number[] = [];
    const watchdog = watchServerMonitors(asMongoClient(client), {
      ...OPTIONS,
      onRecovered: ({ attempts }) => recoveries.push(attempts),
    });
    client.failConnects = 2;
    client.emit('serverHeartbeatStarted', { connectionId: 'a:1', awaited: false });
    await vi.advanceTimersByTimeAsync(POLLED_LIMIT_MS + OPTIONS.checkEveryMs);
    expect(client.connects).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(client.connects).toBe(3);
    expect(recoveries).toEqual([3]);
    expect(client.closes).toBe(1);
    await watchdog.stop();
  });

  it('When stopped, then it stops listening to the client', async () => {
    const watchdog = watchServerMonitors(asMongoClient(client), OPTIONS);
    await watchdog.stop();
    expect(client.listenerCount('serverHeartbeatStarted')).toBe(0);
    client.emit('serverHeartbeatStarted', { connectionId: 'a:1', awaited: false });
    await vi.advanceTimersByTimeAsync(10 * POLLED_LIMIT_MS);
    expect(client.closes).toBe(0);
  });
});
