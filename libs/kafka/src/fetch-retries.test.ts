// Drives kafkajs' own Runner (its retrier and fetch manager) with a consumer group that is a plain object whose
// fetch fails when told to, on fake timers: how long the member stops fetching after each failure.
import Runner from 'kafkajs/src/consumer/runner.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { freshPausesAfterHealthyRun, HEALTHY_FETCH_RUN_MS, mendFetchRetries } from './fetch-retries';

const FIRST_PAUSE_MS = 200;
const FETCH_MS = 100;
const logger = { debug() {}, info() {}, warn() {}, error() {}, namespace: () => logger };

/** A refusal kafkajs retries without joining again (what a coordinator still loading the group answers a commit). */
function loading(): Error {
  return Object.assign(new Error('The coordinator is loading'), {
    name: 'KafkaJSProtocolError',
    type: 'GROUP_LOAD_IN_PROGRESS',
    retriable: true,
  });
}

/** A runner whose fetches take FETCH_MS; the first to end at or after each time of `failAt` (ms) fails. */
function fetchingRunner(failAt: number[]) {
  const starts: number[] = [];
  const failures: number[] = [];
  const pending = [...failAt];
  const group = {
    memberId: 'member-1',
    groupId: 'dispatcher',
    connect: () => Promise.resolve(),
    joinAndSync: () => Promise.resolve(),
    getNodeIds: () => [1],
    heartbeat: () => Promise.resolve(),
    fetch: async () => {
      starts.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, FETCH_MS));
      if (pending.length > 0 && Date.now() >= (pending[0] ?? Infinity)) {
        pending.shift();
        failures.push(Date.now());
        throw loading();
      }
      return [];
    },
  };
  const Constructor = Runner as unknown as new (options: object) => { start(): Promise<void>; stop(): Promise<void> };
  const runner = new Constructor({
    logger,
    consumerGroup: group,
    instrumentationEmitter: { emit() {} },
    eachBatchAutoResolve: true,
    concurrency: 1,
    eachMessage: () => Promise.resolve(),
    heartbeatInterval: 0,
    // kafkajs' own pauses, without their random part: 200 ms, doubled at each retry of one call.
    retry: { initialRetryTime: FIRST_PAUSE_MS, maxRetryTime: 5_000, retries: 100, factor: 0, multiplier: 2 },
    onCrash: (err: unknown) => {
      throw err;
    },
    autoCommit: false,
  });
  /** How long the member stopped fetching after each failure: from the failed fetch's end to the next start. */
  /** How long the member stopped fetching after each failure: from the failed fetch's end to the next start. */
  const pauses = () => failures.map((at) => (starts.find((start) => start >= at) ?? Number.NaN) - at);
  return { runner, pauses };
}

/** Stops the runner, letting its last fetch end (it waits for it). */
async function stopping(runner: { stop(): Promise<void> }): Promise<void> {
  const stopped = runner.stop();
  await vi.advanceTimersByTimeAsync(FETCH_MS);
  await stopped;
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a member's fetch loop after an error", () => {
  it('pauses as briefly at each new incident, however many came before since its last join', async () => {
    mendFetchRetries(FIRST_PAUSE_MS);
    const { runner, pauses } = fetchingRunner([5_000, 12_000, 19_000]);

    await runner.start();
    await vi.advanceTimersByTimeAsync(25_000);
    await stopping(runner);

    // kafkajs alone pauses 200, 400 and 800 ms here: the three incidents count as retries of one call.
    expect(pauses()).toEqual([FIRST_PAUSE_MS, FIRST_PAUSE_MS, FIRST_PAUSE_MS]);
  });

  it('still pauses longer and longer while the error comes back at once', async () => {
    mendFetchRetries(FIRST_PAUSE_MS);
    const { runner, pauses } = fetchingRunner([5_000, 5_001, 5_002, 5_003]);

    await runner.start();
    await vi.advanceTimersByTimeAsync(10_000);
    await stopping(runner);

    expect(pauses()).toEqual([FIRST_PAUSE_MS, FIRST_PAUSE_MS, 2 * FIRST_PAUSE_MS, 4 * FIRST_PAUSE_MS]);
  });

  it('hands a rebalance to kafkajs as it came, however long the loop ran (the runner joins again)', async () => {
    const rebalance = Object.assign(new Error('rebalancing'), { type: 'REBALANCE_IN_PROGRESS' });
    const start = freshPausesAfterHealthyRun(
      () => new Promise<void>((_resolve, reject) => setTimeout(() => reject(rebalance), HEALTHY_FETCH_RUN_MS * 2)),
      { healthyMs: HEALTHY_FETCH_RUN_MS, firstPauseMs: FIRST_PAUSE_MS },
    );

    const run = expect(start()).rejects.toBe(rebalance);
    await vi.advanceTimersByTimeAsync(HEALTHY_FETCH_RUN_MS * 2);
    await run;
  });
});
