import { GroupCommit } from '@checkout/coalesce';
import {
  MongoBulkWriteError,
  PeriodicTask,
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
  type Filter,
  type UpdateFilter,
} from '@checkout/mongo';
import type { Logger } from 'pino';
import { currentTraceCarrier, type TraceCarrier } from '@checkout/telemetry';
import type { EventProducer, OutgoingMessage } from './producer';
import type { Counter, Histogram } from 'prom-client';

/** One event waiting in its aggregate's document to be published (docs/engineering.md, messaging rules). */
export interface OutboxEntry {
  eventId: string;
  topic: string;
  key: string;
  value: string;
  createdAt: Date;
  /**
   * The trace of the request that wrote the event (W3C trace context), set by appendToOutbox while tracing is
   * on: the relay's publish continues it, from the fast path or from a sweep after a crash.
   */
  trace?: TraceCarrier;
}

/**
 * The header a message published by the sweep carries: when its event was written (epoch milliseconds). Consumers
 * ignore it; it tells an operator (and the soaks' ledger) which events waited for the sweep and since when, which
 * only a crash or an outage should cause (every write publishes its own events at once).
 */
export const SWEPT_HEADER = 'outbox-swept-written-at';

/** Fields an aggregate document carries to hold its unpublished events. */
export interface OutboxFields {
  outbox: OutboxEntry[];
  /** True while outbox is not empty; indexed so the relay's sweep finds leftovers cheaply. */
  outboxPending: boolean;
}

/**
 * Adds an event to a document that is about to be written; the state change and the event land together, and
 * with them the active trace context, so that whoever publishes the event continues the trace that caused it.
 */
export function appendToOutbox<D extends OutboxFields>(doc: D, entry: OutboxEntry): D {
  const trace = entry.trace ?? currentTraceCarrier();
  return { ...doc, outbox: [...doc.outbox, trace ? { ...entry, trace } : entry], outboxPending: true };
}

/**
 * The same for a conditional update (`findOneAndUpdate`): the operators that record `entry` (with the active
 * trace context, as appendToOutbox) in the document's outbox, for the store to merge into the update that makes
 * the state change, so both land in one write.
 */
export function outboxPush(entry: OutboxEntry): { $push: { outbox: OutboxEntry }; $set: { outboxPending: true } } {
  const trace = entry.trace ?? currentTraceCarrier();
  return { $push: { outbox: trace ? { ...entry, trace } : entry }, $set: { outboxPending: true } };
}

/** What the relay reports (registerOutboxMetrics, metrics.ts, makes it). */
export interface OutboxMetrics {
  /** Fast-path or sweep publishes that failed; the sweep publishes the event later, so it is late, not lost. */
  publishFailures: Counter<'path'>;
  /** From an event's write to Kafka's acknowledgement of it: the pay → completed-event SLO's indicator. */
  publishDelay: Histogram<'path'>;
}

export interface OutboxRelayOptions<D extends Document & OutboxFields & { _id: string }> {
  collection: Collection<D>;
  producer: EventProducer;
  logger: Logger;
  sweepIntervalMs?: number;
  /**
   * The sweep leaves entries younger than this to the fast path (publishWritten right after the write), so
   * the two rarely publish the same event. A crash leaves entries that soon become old enough.
   */
  sweepGraceMs?: number;
  batchSize?: number;
  /** Counts failed publishes (registerOutboxMetrics); a failure after the answer was sent is otherwise silent. */
  metrics?: OutboxMetrics;
  /**
   * The fields of the collection's shard key (its store/indexes.ts declaration), copied from the document into
   * every update's filter beside its _id, so that a sharded cluster sends the relay's writes to one shard.
   */
  shardKeyFields?: readonly string[];
}

/**
 * Publishes what aggregates wrote into their outbox, then marks it sent. The fast path publishes right after
 * a write (publishWritten); a sweep at start and on a timer republishes whatever a crash left behind. Events may
 * therefore be published twice (crash between publish and mark); consumers deduplicate on the event id.
 */
export class OutboxRelay<D extends Document & OutboxFields & { _id: string }> {
  private readonly sweeper: PeriodicTask;
  private readonly sweepIntervalMs: number;
  private readonly sweepGraceMs: number;
  private readonly batchSize: number;
  /** Documents this relay is publishing right now; the fast path and the sweep never both take one. */
  private readonly inFlight = new Map<string, Publishing>();
  /**
   * The exact marks (markSent) of publishes that finish while one is being written go together as the next
   * write: the producer acknowledges a whole group of callers' sends at once, so their marks arrive together and
   * take one `update` command between them instead of one each.
   */
  private readonly exactMarks: GroupCommit<ExactMark<D>, boolean>;

  constructor(private readonly options: OutboxRelayOptions<D>) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? 1_000;
    this.sweepGraceMs = options.sweepGraceMs ?? 2_000;
    this.batchSize = options.batchSize ?? 100;
    this.exactMarks = new GroupCommit((marks) => this.markExactly(marks), {
      // A statement refused (not the engine unreachable): each mark again alone, so only its own caller fails.
      retryAloneWhen: (err) => err instanceof MongoBulkWriteError,
    });
    this.sweeper = new PeriodicTask(
      () => this.sweep(),
      this.sweepIntervalMs,
      (err) => options.logger.warn({ err }, 'outbox sweep failed; will retry'),
    );
  }

  start(): void {
    this.sweeper.start();
  }

  /** Stops the sweep, then waits for the marks (and hand-overs) of the publishes still in flight. */
  async stop(): Promise<void> {
    await this.sweeper.stop();
    await this.idle();
  }

  /** Resolves once every publish this relay has begun is sent and marked, or failed. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()].map((publishing) => publishing.done));
  }

  /**
   * The fast path: publishes the outbox of a document this process has just written and holds, without reading
   * it back (no database command before the send); resolves with how many were published once the broker has
   * acknowledged them, while their mark follows (the caller's answer does not wait for a bookkeeping write; a
   * process that dies before it leaves them to the sweep, which publishes them again, as after any crash).
   * Entries another writer appended meanwhile are not in `doc`; they stay in the outbox (markSent removes only
   * what was sent) for the sweep.
   */
  async publishWritten(doc: D): Promise<number> {
    if (doc.outbox.length === 0) return 0;
    try {
      return await this.publishAndMark(doc, 'fast');
    } catch (err) {
      this.options.metrics?.publishFailures.inc({ path: 'fast' });
      throw err;
    }
  }

  /** Publishes everything pending longer than the grace period; returns the number of events published. */
  async sweep(): Promise<number> {
    let published = 0;
    const pending = await this.options.collection
      .find({ outboxPending: true } as Filter<D>)
      .limit(this.batchSize)
      .toArray();
    const due = Date.now() - this.sweepGraceMs;
    for (const doc of pending as D[]) {
      if (doc.outbox.length === 0) {
        await this.clearPendingIfEmpty(this.target(doc));
        continue;
      }
      if (!doc.outbox.some((e) => e.createdAt.getTime() <= due)) continue;
      try {
        published += await this.publishAndMark(doc, 'sweep');
      } catch (err) {
        this.options.metrics?.publishFailures.inc({ path: 'sweep' });
        throw err;
      }
    }
    return published;
  }

  /**
   * One publisher per document in this process. A write whose document is already being published hands its entries
   * to that publisher, which sends them right after its own send is marked, and returns when they are sent and
   * marked: the fast path never leaves an event to the sweep because another write of the same document was
   * quicker. The sweep skips such a document, and waits for its whole publish; the fast path's own caller only
   * for its acknowledgement.
   */
  private async publishAndMark(doc: D, path: 'fast' | 'sweep'): Promise<number> {
    const running = this.inFlight.get(doc._id);
    if (running) {
      if (path === 'sweep') return 0;
      for (const entry of doc.outbox) running.handedOver.set(entry.eventId, entry);
      await running.done;
      return 0;
    }
    const publishing: Publishing = { handedOver: new Map(), done: Promise.resolve(0) };
    this.inFlight.set(doc._id, publishing);
    let acknowledge = (): void => {};
    const acknowledged = new Promise<void>((resolve) => (acknowledge = resolve));
    publishing.done = this.publishWithHandOvers(doc, doc.outbox, path, publishing, acknowledge);
    if (path === 'sweep') return publishing.done;
    let answered = false;
    // Registered before the race below, so it runs first: a failed send rejects the caller; a failed mark (after
    // the answer) is only logged, its events being on Kafka already and the sweep sending them again.
    publishing.done.catch((err: unknown) => {
      if (answered)
        this.options.logger.warn({ err }, 'marking published outbox entries failed; the sweep resends them');
    });
    await Promise.race([acknowledged, publishing.done]);
    answered = true;
    return doc.outbox.length;
  }

  /** The filter that finds `doc` again: its _id and the other fields of the shard key. */
  private target(doc: D): Filter<D> {
    const filter: Document = { _id: doc._id };
    for (const field of this.options.shardKeyFields ?? []) if (field in doc) filter[field] = doc[field] as unknown;
    return filter as Filter<D>;
  }

  private async publishWithHandOvers(
    doc: D,
    entries: OutboxEntry[],
    path: 'fast' | 'sweep',
    publishing: Publishing,
    acknowledged: () => void,
  ): Promise<number> {
    try {
      const target = this.target(doc);
      let published = await this.publishAndMarkEntries(target, entries, path, acknowledged);
      const sent = new Set(entries.map((e) => e.eventId));
      // Checking for hand-overs and leaving inFlight (finally) happen in one turn: none can slip in between.
      for (
        let next = unsent(publishing.handedOver, sent);
        next.length > 0;
        next = unsent(publishing.handedOver, sent)
      ) {
        published += await this.publishAndMarkEntries(target, next, 'fast');
        for (const e of next) sent.add(e.eventId);
      }
      return published;
    } finally {
      this.inFlight.delete(doc._id);
    }
  }

  private async publishAndMarkEntries(
    target: Filter<D>,
    entries: OutboxEntry[],
    path: 'fast' | 'sweep',
    acknowledged?: () => void,
  ): Promise<number> {
    const messages = entries.map((e): OutgoingMessage => {
      const headers: Record<string, string> = { 'event-id': e.eventId };
      if (path === 'sweep') headers[SWEPT_HEADER] = String(e.createdAt.getTime());
      return { topic: e.topic, key: e.key, value: e.value, headers, trace: e.trace };
    });
    await this.options.producer.send(messages);
    acknowledged?.();
    const acknowledgedAt = Date.now();
    for (const e of entries)
      this.options.metrics?.publishDelay.observe({ path }, Math.max(0, acknowledgedAt - e.createdAt.getTime()) / 1000);
    await this.markSent(
      target,
      entries.map((e) => e.eventId),
    );
    return entries.length;
  }

  /**
   * Removes the published entries with conditional updates, so a change the aggregate's store makes meanwhile
   * (which may append an event) is never overwritten. Usually the outbox holds exactly what was sent: one update
   * empties it and clears outboxPending (written with the other publishes' marks, markExactly). Otherwise $pull
   * takes just those entries; if that leaves the outbox empty, outboxPending is cleared by a second conditional
   * update (or by the sweep, after a crash). Each bumps `revision`, so a store's replaceIfUnchanged (libs/mongo)
   * based on an older read loses and re-reads instead of writing the sent entries back.
   */
  private async markSent(target: Filter<D>, eventIds: string[]): Promise<void> {
    if (await this.exactMarks.add({ target, eventIds })) return;
    // Only documents still holding one of the entries: after a group's write that missed somewhere, every member
    // comes here, and those whose exact mark did land have nothing left to pull.
    const pulled = await this.options.collection.updateOne({ ...target, 'outbox.eventId': { $in: eventIds } }, {
      $pull: { outbox: { eventId: { $in: eventIds } } },
      $inc: { revision: 1 },
    } as unknown as UpdateFilter<D>);
    if (pulled.matchedCount === 1) await this.clearPendingIfEmpty(target);
  }

  /**
   * Empties each outbox that holds exactly the entries sent, in one command; answers per mark whether it surely
   * landed. The bulk result counts matches, not which statements matched, so when one missed, none is sure.
   */
  private async markExactly(marks: readonly ExactMark<D>[]): Promise<boolean[]> {
    const updates = marks.map(({ target, eventIds }) => ({
      filter: { ...target, outbox: { $size: eventIds.length }, 'outbox.eventId': { $all: eventIds } },
      update: { $set: { outbox: [], outboxPending: false }, $inc: { revision: 1 } } as unknown as UpdateFilter<D>,
    }));
    const { collection } = this.options;
    const [only] = updates;
    // A lone mark (every mark when the load is light) is one plain updateOne, without the driver's bulk machinery.
    if (only && updates.length === 1)
      return [(await collection.updateOne(only.filter, only.update)).matchedCount === 1];
    const operations = updates.map((updateOne): AnyBulkWriteOperation<D> => ({ updateOne }));
    const { matchedCount } = await collection.bulkWrite(operations, { ordered: false });
    return marks.map(() => matchedCount === marks.length);
  }

  private async clearPendingIfEmpty(target: Filter<D>): Promise<void> {
    await this.options.collection.updateOne({ ...target, outbox: { $size: 0 }, outboxPending: true }, {
      $set: { outboxPending: false },
      $inc: { revision: 1 },
    } as unknown as UpdateFilter<D>);
  }
}

/** One publish's exact mark: its document, and the entries it sent, which its outbox should hold and nothing else. */
interface ExactMark<D> {
  target: Filter<D>;
  eventIds: string[];
}

/** A document being published: the entries later writes handed over meanwhile, and when all of them are sent. */
interface Publishing {
  handedOver: Map<string, OutboxEntry>;
  done: Promise<number>;
}

/** The entries handed over to a running publisher that it has not sent yet, oldest first; clears the hand-over. */
function unsent(handedOver: Map<string, OutboxEntry>, sent: Set<string>): OutboxEntry[] {
  const entries = [...handedOver.values()].filter((e) => !sent.has(e.eventId));
  handedOver.clear();
  return entries.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}
