import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { Consumer } from 'kafkajs';
import { COMMIT_ANSWER_MS, batchCommits } from './batch-commits';

type Commit = { topic: string; partition: number; offset: string };

/** The part of a kafkajs consumer batchCommits uses; its commits fail while `refuse` says so. */
function fakeConsumer(refuse: (commit: Commit[]) => Error | 'no answer' | undefined) {
  const listeners = new Map<string, Array<() => void>>();
  const committed: Commit[][] = [];
  const consumer = {
    events: { GROUP_JOIN: 'consumer.group_join', STOP: 'consumer.stop' },
    on(event: string, listener: () => void) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return () => {};
    },
    commitOffsets(offsets: Commit[]) {
      const refusal = refuse(offsets);
      // kafkajs retrying a refused commit forever, to the coordinator of the last join (tulios/kafkajs#1779).
      if (refusal === 'no answer') return new Promise<void>(() => {});
      if (refusal) return Promise.reject(refusal);
      committed.push(offsets);
      return Promise.resolve();
    },
    seek() {},
  };
  const emit = (event: string) => listeners.get(event)?.forEach((listener) => listener());
  return { consumer: consumer as unknown as Consumer, committed, emit };
}

const log = pino({ level: 'silent' });
const batch = (first: number, last: number) => ({
  topic: 't',
  partition: 0,
  firstOffset: String(first),
  lastOffset: String(last),
});
const notCoordinator = () =>
  Object.assign(new Error('This is not the correct coordinator for this group'), { type: 'NOT_COORDINATOR_FOR_GROUP' });

// The retry delay runs on vitest's fake clock: "not sent again" is then checked at an exact instant, not after a sleep.
describe('batchCommits', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('When a commit is refused and no batch follows on that partition, then it is sent again until it lands', async () => {
    let refusals = 2;
    const { consumer, committed } = fakeConsumer(() => (refusals-- > 0 ? new Error('Connection closed') : undefined));
    const commits = batchCommits(consumer, log, () => {});
    commits.track(batch(0, 9), Promise.resolve());
    await vi.advanceTimersByTimeAsync(0);
    expect(committed).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(committed).toEqual([[{ topic: 't', partition: 0, offset: '10' }]]);
  });

  it('When a refused commit is covered by a later one, then it is not sent again and the offset never goes back', async () => {
    let refuseFirst = true;
    const { consumer, committed, emit } = fakeConsumer(() => {
      if (!refuseFirst) return undefined;
      refuseFirst = false;
      return notCoordinator();
    });
    const commits = batchCommits(consumer, log, () => {});
    emit('consumer.group_join');
    commits.track(batch(0, 9), Promise.resolve());
    await vi.advanceTimersByTimeAsync(0);
    // The coordinator move is thrown once, from the next batch, so that kafkajs' runner rejoins.
    expect(() => commits.rethrowCoordinatorMove()).toThrow('not the correct coordinator');
    expect(() => commits.rethrowCoordinatorMove()).not.toThrow();
    commits.track(batch(10, 19), Promise.resolve());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(committed).toEqual([[{ topic: 't', partition: 0, offset: '20' }]]);
  });

  it('When the consumer stops, then a refused commit is not sent again', async () => {
    let sent = 0;
    const { consumer, emit } = fakeConsumer(() => {
      sent += 1;
      return new Error('Connection closed');
    });
    const commits = batchCommits(consumer, log, () => {});
    commits.track(batch(0, 9), Promise.resolve());
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toBe(1);
    emit('consumer.stop');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sent).toBe(1);
  });

  it('When the coordinator moved and no batch comes to rethrow it, then the member is replaced once, after a few seconds', async () => {
    const { consumer, emit } = fakeConsumer(() => notCoordinator());
    let rejoins = 0;
    const commits = batchCommits(consumer, log, () => (rejoins += 1));
    emit('consumer.group_join');
    commits.track(batch(0, 9), Promise.resolve());
    await vi.advanceTimersByTimeAsync(2_500);
    expect(rejoins).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(rejoins).toBe(1);
    // Still refused until the replacement joins: not replaced again meanwhile by this membership's retries.
    emit('consumer.stop');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(rejoins).toBe(1);
  });

  it('When a batch rethrows the coordinator move in time, then the member is not replaced', async () => {
    let refuseFirst = true;
    const { consumer, emit } = fakeConsumer(() => {
      if (!refuseFirst) return undefined;
      refuseFirst = false;
      return notCoordinator();
    });
    let rejoins = 0;
    const commits = batchCommits(consumer, log, () => (rejoins += 1));
    emit('consumer.group_join');
    commits.track(batch(0, 9), Promise.resolve());
    await vi.advanceTimersByTimeAsync(0);
    expect(() => commits.rethrowCoordinatorMove()).toThrow('not the correct coordinator');
    emit('consumer.group_join');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(rejoins).toBe(0);
  });

  it('When a commit of the previous membership is still being retried at a join, then the member is replaced at once: kafkajs would land it with the new generation, after newer commits', async () => {
    const { consumer, emit } = fakeConsumer(() => 'no answer');
    let rejoins = 0;
    const commits = batchCommits(consumer, log, () => (rejoins += 1));
    emit('consumer.group_join');
    commits.track(batch(0, 9), Promise.resolve());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(rejoins).toBe(0);
    // A rebalance within the same consumer: kafkajs goes on retrying the commit, now with the new generation.
    emit('consumer.group_join');
    expect(rejoins).toBe(1);
    // Its own deadline later asks for no second replacement.
    await vi.advanceTimersByTimeAsync(COMMIT_ANSWER_MS);
    expect(rejoins).toBe(1);
  });

  it('When every commit has settled by a join, or the member stopped, then the join replaces nothing', async () => {
    let answer = true;
    const { consumer, emit } = fakeConsumer(() => (answer ? undefined : 'no answer'));
    let rejoins = 0;
    const commits = batchCommits(consumer, log, () => (rejoins += 1));
    emit('consumer.group_join');
    commits.track(batch(0, 9), Promise.resolve());
    await vi.advanceTimersByTimeAsync(0);
    emit('consumer.group_join');
    expect(rejoins).toBe(0);
    answer = false;
    commits.track(batch(10, 19), Promise.resolve());
    await vi.advanceTimersByTimeAsync(0);
    // kafkajs restarts a crashed consumer: the stopped member's retries carry a member id the group forgot.
    emit('consumer.stop');
    emit('consumer.group_join');
    expect(rejoins).toBe(0);
  });

  it('When a commit does not answer (kafkajs retrying it to a coordinator that moved), then the member is replaced once, after COMMIT_ANSWER_MS', async () => {
    const { consumer, emit } = fakeConsumer(() => 'no answer');
    let rejoins = 0;
    const commits = batchCommits(consumer, log, () => (rejoins += 1));
    emit('consumer.group_join');
    commits.track(batch(0, 9), Promise.resolve());
    commits.track({ ...batch(0, 4), partition: 1 }, Promise.resolve());
    await vi.advanceTimersByTimeAsync(COMMIT_ANSWER_MS - 1);
    expect(rejoins).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(rejoins).toBe(1);
    await vi.advanceTimersByTimeAsync(3 * COMMIT_ANSWER_MS);
    expect(rejoins).toBe(1);
    // The same consumer joined again (kafkajs restarted it): a commit of that membership unanswered replaces it too.
    emit('consumer.group_join');
    commits.track(batch(10, 19), Promise.resolve());
    await vi.advanceTimersByTimeAsync(COMMIT_ANSWER_MS);
    expect(rejoins).toBe(2);
  });
});
