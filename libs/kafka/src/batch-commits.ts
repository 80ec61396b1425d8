import type { Consumer } from 'kafkajs';
import type { Logger } from 'pino';
import { GroupCommit } from '@checkout/coalesce';
import { protocolErrorType, withinDeadline } from './kafkajs-accommodations';

/** kafkajs' answer to a request sent to a broker that is no longer the group's coordinator. */
function isNotCoordinator(err: unknown): err is Error {
  return protocolErrorType(err) === 'NOT_COORDINATOR_FOR_GROUP';
}

/**
 * How long after a failed commit it is sent again. A partition that gets no new batch would otherwise keep its
 * committed offset behind what was handled until the next rebalance: its lag never reaches 0, and the next owner
 * handles those messages again (seen in the three-broker test: a commit refused while a broker restarted, then
 * nothing more on that partition).
 */
const COMMIT_RETRY_MS = 1_000;
/**
 * How long a coordinator move may wait for a batch to rethrow it. With no new message on any of the member's
 * partitions no batch comes, and kafkajs would send every commit to the old coordinator until the next rebalance
 * (seen in the two-minute rollout: 31 messages left uncommitted after the drain, the last broker restarted as the
 * load ended). Then the member is replaced, which joins again and finds the new coordinator.
 */
const COORDINATOR_MOVE_REJOIN_MS = 3_000;
/**
 * How long a commit may go unanswered before the member is replaced. kafkajs' `commitOffsets` retries a refused
 * commit with the consumer's retry settings, which are endless here (CONSUMER_GROUP_SETTINGS): the refusal never
 * reaches this code, the commit just does not answer, and every later commit waits behind it. Its retries follow a
 * moved coordinator (coordinator-moves.ts); before that fix they all went to the coordinator of the last join
 * (tulios/kafkajs#1779: in the two-minute rollout and the three-broker test a group's commits were refused every
 * 5 s for minutes after the last broker restart, its lag never 0). This stays for a coordinator the cluster cannot
 * name. A healthy commit answers within a fetch's wait (GROUP_FETCH_MAX_WAIT_MS); a broker restart takes 10-15 s,
 * so this also replaces a member whose coordinator is down, which a fresh member survives.
 */
export const COMMIT_ANSWER_MS = 10_000;

/** A commit still unanswered after COMMIT_ANSWER_MS. */
class CommitUnanswered extends Error {
  constructor() {
    super(`an offset commit did not answer within ${COMMIT_ANSWER_MS} ms`);
  }
}

interface PendingCommit {
  nextOffset: string;
  settled: boolean;
}

export interface BatchCommits {
  /** Throws the refusal of a commit whose coordinator moved, once, so that kafkajs' runner rejoins. */
  rethrowCoordinatorMove(): void;
  /** Commits past the batch once `done` resolves and every earlier batch of its partition is settled too. */
  track(
    batch: { topic: string; partition: number; firstOffset: string; lastOffset: string },
    done: Promise<void>,
  ): void;
}

type Move = { topic: string; partition: number; offset: string };

/**
 * The highest offset of each partition among `moves`, whatever their order: a retried commit must never take a
 * partition's committed offset back.
 */
function highestPerPartition(moves: readonly Move[]): Move[] {
  const highest = new Map<string, Move>();
  for (const move of moves) {
    const key = `${move.topic}:${move.partition}`;
    const known = highest.get(key);
    if (!known || BigInt(move.offset) > BigInt(known.offset)) highest.set(key, move);
  }
  return [...highest.values()];
}

/**
 * Sends batchCommits' commits. One request at a time, carrying the newest offset of every partition that moved
 * meanwhile: batches settle far more often than a commit returns (it waits behind the parked fetch on kafkajs'
 * one connection to the broker), and a request per batch only made the broker work. A refused commit is sent
 * again every COMMIT_RETRY_MS until it lands, a later commit covers it, the member joins again or stops.
 */
class OffsetCommitter {
  private readonly requests: GroupCommit<Move>;
  // Per partition, the highest offset committed in this membership.
  private committed = new Map<string, bigint>();
  private membership = 0;
  private readonly retries = new Set<NodeJS.Timeout>();
  // Stopped: by its owner, or by kafkajs before it restarts the same consumer after a crash (then it joins again).
  private stopped = false;
  // A commit the old coordinator refused after the group's coordinator moved (a broker restart in a cluster).
  // kafkajs keeps sending our commits to the broker it found at the last join, so every later commit fails the
  // same way until the member rejoins (measured in the rollout soak: 515 messages left uncommitted
  // for the rest of a run). Rethrown from the next batch, it makes kafkajs' runner rejoin (isRebalancing), which
  // finds the new coordinator; the batches in hand are fetched again (at least once).
  private coordinatorMoved: Error | undefined;
  // No batch came to rethrow the move in time: the member is replaced (COORDINATOR_MOVE_REJOIN_MS).
  private rejoinTimer: NodeJS.Timeout | undefined;
  // A commit of this membership went unanswered: the member is being replaced (once; every commit in it rejects).
  private replaced = false;
  // Commits kafkajs has not settled yet, with the membership each was sent in (see stuckAtJoin).
  private readonly unsettled = new Map<Promise<void>, number>();

  constructor(
    consumer: Consumer,
    private readonly log: Logger,
    private readonly rejoin: () => void,
  ) {
    this.requests = new GroupCommit<Move>(async (moves) => {
      const sent = consumer.commitOffsets(highestPerPartition(moves));
      this.unsettled.set(sent, this.membership);
      const settle = () => this.unsettled.delete(sent);
      sent.then(settle, settle);
      await withinDeadline(sent, COMMIT_ANSWER_MS, () => new CommitUnanswered());
      return moves.map((): void => undefined);
    });
    consumer.on(consumer.events.STOP, () => {
      this.stopped = true;
      for (const timer of this.retries) clearTimeout(timer);
      this.retries.clear();
      // A stopped member's retries carry a member id the group no longer knows: they cannot land.
      this.unsettled.clear();
      this.disarmRejoin();
    });
    consumer.on(consumer.events.GROUP_JOIN, () => {
      const replacing = this.replaced;
      this.stopped = false;
      this.membership += 1;
      this.committed = new Map();
      this.coordinatorMoved = undefined;
      this.replaced = false;
      this.disarmRejoin();
      if (!replacing) this.replaceIfStuckAtJoin();
    });
  }

  /**
   * A commit of the membership before this join that kafkajs still retries (a retriable refusal such as a moved
   * coordinator, or no answer: a refusal during a rebalance is final and settles before the join) would now be
   * sent with this membership's generation, to the new coordinator. It would land whenever its retry comes, after
   * this membership's newer commits too, and take the partition's committed offset back, with nothing to move it
   * on when no message follows (seen in the two-minute rollout: 2 messages left uncommitted after the drain, the
   * last broker restarted as the load ended). Replacing the member stops those retries; the group then reads on
   * from the last commit that landed (at least once).
   */
  private replaceIfStuckAtJoin(): void {
    if (![...this.unsettled.values()].some((sentIn) => sentIn < this.membership)) return;
    this.replaced = true;
    this.log.warn("a commit of the group's previous membership is still being retried; replacing the member");
    this.rejoin();
  }

  commit(move: Move): void {
    this.send(move, this.membership);
  }

  /** The refusal of a commit whose coordinator moved, once. */
  takeCoordinatorMove(): Error | undefined {
    const moved = this.coordinatorMoved;
    this.coordinatorMoved = undefined;
    return moved;
  }

  private send(move: Move, sentIn: number): void {
    const key = `${move.topic}:${move.partition}`;
    this.requests.add(move).then(
      () => {
        if (sentIn === this.membership && !this.covered(key, move)) this.committed.set(key, BigInt(move.offset));
      },
      (err: unknown) => this.failed(err, move, sentIn),
    );
  }

  private covered(key: string, move: Move): boolean {
    return (this.committed.get(key) ?? -1n) >= BigInt(move.offset);
  }

  private failed(err: unknown, move: Move, sentIn: number): void {
    if (err instanceof CommitUnanswered) {
      // kafkajs goes on retrying it until the member stops; the new member starts from the last commit that
      // landed (at least once). One of an earlier membership is no safer (replaceIfStuckAtJoin).
      if (!this.stopped && !this.replaced) {
        this.replaced = true;
        this.log.warn(
          { err, topic: move.topic, partition: move.partition },
          'an offset commit did not answer (the group coordinator moved?); replacing the member',
        );
        this.rejoin();
      }
      return;
    }
    if (isNotCoordinator(err)) {
      this.coordinatorMoved = err;
      this.armRejoin();
    }
    this.log.warn(
      { err, topic: move.topic, partition: move.partition },
      'offset commit failed; it is sent again shortly',
    );
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      // After a rejoin the partition's owner starts from its last commit anyway.
      const key = `${move.topic}:${move.partition}`;
      if (!this.stopped && sentIn === this.membership && !this.covered(key, move)) this.send(move, sentIn);
    }, COMMIT_RETRY_MS);
    timer.unref();
    this.retries.add(timer);
  }

  private disarmRejoin(): void {
    clearTimeout(this.rejoinTimer);
    this.rejoinTimer = undefined;
  }

  private armRejoin(): void {
    this.rejoinTimer ??= setTimeout(() => {
      this.rejoinTimer = undefined;
      if (this.stopped || !this.coordinatorMoved) return;
      this.coordinatorMoved = undefined;
      this.log.warn(
        'the group coordinator moved and no batch came to rejoin with; replacing the member so that its commits reach the new one',
      );
      this.rejoin();
    }, COORDINATOR_MOVE_REJOIN_MS);
    this.rejoinTimer.unref();
  }
}

/**
 * The offsets of runBatchConsumer's batches in hand. Commits are per partition, in order, and coalesced: one
 * commit covers every consecutive batch whose work is done. A rebalance forgets what was not committed; the
 * partition's new owner fetches it again.
 */
export function batchCommits(consumer: Consumer, log: Logger, rejoin: () => void): BatchCommits {
  // Per partition, the batches in hand in offset order; replaced wholesale on every (re)join.
  let pending = new Map<string, PendingCommit[]>();
  consumer.on(consumer.events.GROUP_JOIN, () => {
    pending = new Map();
  });
  const committer = new OffsetCommitter(consumer, log, rejoin);
  const commitSettled = (topic: string, partition: number, queue: PendingCommit[]) => {
    let offset: string | undefined;
    while (queue[0]?.settled) offset = queue.shift()?.nextOffset;
    if (offset !== undefined) committer.commit({ topic, partition, offset });
  };
  return {
    rethrowCoordinatorMove() {
      const moved = committer.takeCoordinatorMove();
      if (moved) throw moved;
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
          log.warn(
            { err, topic, partition, offset: firstOffset },
            'batch failed after it was taken; fetching it again',
          );
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
