import type { Consumer } from 'kafkajs';
import type { Logger } from 'pino';
import { GroupCommit } from '@checkout/coalesce';

/** kafkajs' answer to a request sent to a broker that is no longer the group's coordinator. */
function isNotCoordinator(err: unknown): err is Error {
  return err instanceof Error && (err as { type?: unknown }).type === 'NOT_COORDINATOR_FOR_GROUP';
}

interface PendingCommit {
  nextOffset: string;
  settled: boolean;
}

export interface BatchCommits {
  /** Throws the refusal of a commit whose coordinator moved, once, so that kafkajs' runner rejoins. */
  rethrowCoordinatorMove(): void;
  /** Commits past the batch once `done` resolves and every earlier batch of its partition is settled too. */
  track(batch: { topic: string; partition: number; firstOffset: string; lastOffset: string }, done: Promise<void>): void;
}

/**
 * The offsets of runBatchConsumer's batches in hand. Commits are per partition, in order, and coalesced: one
 * commit covers every consecutive batch whose work is done. A rebalance forgets what was not committed; the
 * partition's new owner fetches it again.
 */
export function batchCommits(consumer: Consumer, log: Logger): BatchCommits {
  // Per partition, the batches in hand in offset order; replaced wholesale on every (re)join.
  let pending = new Map<string, PendingCommit[]>();
  // One commit request at a time, carrying the newest offset of every partition that moved meanwhile: batches
  // settle far more often than a commit returns (it waits behind the parked fetch on kafkajs' one connection
  // to the broker), and a request per batch only made the broker work.
  const commits = new GroupCommit<{ topic: string; partition: number; offset: string }>(async (moves) => {
    const newest = new Map(moves.map((move) => [`${move.topic}:${move.partition}`, move]));
    await consumer.commitOffsets([...newest.values()]);
    return moves.map((): void => undefined);
  });
  // A commit the old coordinator refused after the group's coordinator moved (a broker restart in a cluster).
  // kafkajs keeps sending our commits to the broker it found at the last join, so every later commit fails the
  // same way until the member rejoins (measured in the rollout soak, issue 21: 515 messages left uncommitted
  // for the rest of a run). Rethrown from the next batch, it makes kafkajs' runner rejoin (isRebalancing), which
  // finds the new coordinator; the batches in hand are fetched again (at least once).
  let coordinatorMoved: Error | undefined;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    pending = new Map();
    coordinatorMoved = undefined;
  });
  const commitSettled = (topic: string, partition: number, queue: PendingCommit[]) => {
    let offset: string | undefined;
    while (queue[0]?.settled) offset = queue.shift()?.nextOffset;
    if (offset === undefined) return;
    commits.add({ topic, partition, offset }).catch((err: unknown) => {
      if (isNotCoordinator(err)) coordinatorMoved = err;
      log.warn({ err, topic, partition }, 'offset commit failed; the messages will be fetched again');
    });
  };
  return {
    rethrowCoordinatorMove() {
      if (!coordinatorMoved) return;
      const moved = coordinatorMoved;
      coordinatorMoved = undefined;
      throw moved;
    },
    track({ topic, partition, firstOffset, lastOffset }, done) {
      const key = `${topic}:${partition}`;
      const queues = pending;
      const queue = queues.get(key) ?? [];
      queues.set(key, queue);
      const entry: PendingCommit = { nextOffset: (BigInt(lastOffset) + 1n).toString(), settled: false };
      queue.push(entry);
      done.then(
        () => {
          entry.settled = true;
          if (pending === queues) commitSettled(topic, partition, queue);
        },
        (err: unknown) => {
          // Nothing from this batch on may be committed now: fetch it all again. A batch no longer in the queue
          // was dropped by an earlier batch's failure, whose rewind already covers it: going to its own first
          // offset would skip that earlier batch.
          if (pending !== queues || !queue.includes(entry)) return;
          log.warn({ err, topic, partition, offset: firstOffset }, 'batch failed after it was taken; fetching it again');
          queue.length = 0;
          try {
            consumer.seek({ topic, partition, offset: firstOffset });
          } catch (seekErr) {
            // Stopped or no longer assigned: whoever reads the partition next starts at its last commit.
            log.warn({ err: seekErr, topic, partition }, 'could not go back to the failed batch');
          }
        },
      );
    },
  };
}
