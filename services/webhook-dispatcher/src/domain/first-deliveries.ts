import { GroupCommit } from '@checkout/coalesce';
import type { DeliveryDocument } from '../store/delivery.document';
import type { DispatcherDeps } from './dispatcher';

/** Most deliveries written by one batched insert, so one command never holds the engine's single writer for long. */
const WRITE_BATCH_LIMIT = 200;

/** A first delivery queued here and not stored yet, and the batch waiting for it to be stored. */
export interface UnstoredDelivery {
  delivery: DeliveryDocument;
  queuedAt: number;
  /** Its attempt has begun: the attempt stores it, not the checkpoint. */
  attempting: boolean;
  stored: () => void;
  failed: (err: unknown) => void;
}

/** What an attempt about to start finds of its first delivery. */
export type FirstDeliveryState =
  /** Still only in memory: the attempt is made first, and the delivery is stored once, with it (store()). */
  | { kind: 'unstored' }
  /** Stored while it waited (held by this process); `created` is false when another process had stored it. */
  | { kind: 'stored'; held: DeliveryDocument; created: Promise<boolean> }
  | { kind: 'unknown' };

/**
 * An event's first delivery is stored once (issue 9): after its first attempt, with that attempt in it, by an
 * insert shared with the other deliveries finishing then. Until its batch's deliveries are all stored the batch's
 * offsets stay uncommitted, so a crash brings the messages back (at least once), and the unique delivery id makes
 * a replayed message's delivery once. So that a busy or hanging host cannot hold a batch back for long, a first
 * attempt still queued after `storeQueuedAfterMs` is stored pending, held by this process, and its attempt then
 * records its outcome as every later attempt does (attempts.ts).
 *
 * Across replicas: nothing here is shared; another replica that is given the same partition after a rebalance
 * may attempt the same first delivery again (at least once), and the unique _id keeps one stored record of it.
 */
export class FirstDeliveries {
  private readonly unstored = new Map<string, UnstoredDelivery>();
  private readonly storedWhileQueued = new Map<string, { held: DeliveryDocument; created: Promise<boolean> }>();
  /** Deliveries stored in one insert with the others arriving meanwhile; true for each this insert made. */
  private readonly inserts: GroupCommit<DeliveryDocument, boolean>;
  private checkpointTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: DispatcherDeps) {
    this.inserts = new GroupCommit(async (docs) => {
      const existing = await deps.deliveries.insertDeliveries(docs);
      return docs.map((doc) => !existing.has(doc._id));
    }, { maxBatch: WRITE_BATCH_LIMIT });
  }

  /** Inserts a delivery (shared command); false when it existed already, and then this write did nothing. */
  insert(delivery: DeliveryDocument): Promise<boolean> {
    return this.inserts.add(delivery);
  }

  /**
   * Settles once this first delivery, queued or being attempted here now, is stored; undefined when none by that
   * id waits here. A replayed message's batch waits for it, so that it cannot be committed before the original.
   */
  whenStored(deliveryId: string): Promise<void> | undefined {
    const waiting = this.unstored.get(deliveryId);
    if (waiting) return new Promise((resolve, reject) => this.unstored.set(deliveryId, chain(waiting, resolve, reject)));
    const storing = this.storedWhileQueued.get(deliveryId);
    return storing?.created.then(() => undefined);
  }

  /** Keeps a first delivery about to be queued; the promise settles once it is stored (or cannot be). */
  track(delivery: DeliveryDocument): Promise<void> {
    return new Promise<void>((stored, failed) => {
      this.unstored.set(delivery._id, { delivery, queuedAt: Date.now(), attempting: false, stored, failed });
      this.checkpointTimer ??= setInterval(() => this.storeLongQueued(), Math.max(100, this.deps.policy.storeQueuedAfterMs / 4)).unref();
    });
  }

  /** Forgets a tracked delivery that was not queued after all (the caller stores it another way). */
  untrack(deliveryId: string): UnstoredDelivery | undefined {
    const waiting = this.unstored.get(deliveryId);
    this.unstored.delete(deliveryId);
    return waiting;
  }

  /** Its attempt starts: from now on the checkpoint leaves it alone; the attempt stores it. */
  begin(deliveryId: string): FirstDeliveryState {
    const waiting = this.unstored.get(deliveryId);
    if (waiting && !waiting.attempting) {
      waiting.attempting = true;
      return { kind: 'unstored' };
    }
    const storedEarlier = this.storedWhileQueued.get(deliveryId);
    if (!storedEarlier) return { kind: 'unknown' };
    this.storedWhileQueued.delete(deliveryId);
    return { kind: 'stored', ...storedEarlier };
  }

  /**
   * Stores a first delivery as its attempt left it (or put off with none) and tells its batch. False when another
   * process had stored it already: its record stands and this one is dropped.
   */
  async store(delivery: DeliveryDocument): Promise<boolean> {
    let created: boolean;
    try {
      created = await this.inserts.add(delivery);
    } catch (err) {
      this.settle(delivery._id).failed(err);
      throw err;
    }
    this.settle(delivery._id).stored();
    return created;
  }

  /** Its attempt failed before any outcome (a bug, not a merchant's answer): its batch fails and comes back. */
  abandon(deliveryId: string, err: unknown): void {
    this.settle(deliveryId).failed(err);
  }

  /**
   * What is still queued unstored stays in Kafka: its batch fails, so its offsets are not committed and it comes
   * back. An attempt already begun stores its delivery as usual.
   */
  stop(): void {
    clearInterval(this.checkpointTimer);
    this.checkpointTimer = undefined;
    const err = new Error('dispatcher stopped before the first attempt');
    for (const waiting of [...this.unstored.values()]) {
      if (waiting.attempting) continue;
      this.unstored.delete(waiting.delivery._id);
      waiting.failed(err);
    }
    this.storedWhileQueued.clear();
  }

  /** The waiting entry as it is now (listeners may have been chained to it since), no longer waiting. */
  private settle(deliveryId: string): Pick<UnstoredDelivery, 'stored' | 'failed'> {
    const waiting = this.unstored.get(deliveryId);
    this.unstored.delete(deliveryId);
    return waiting ?? { stored: () => {}, failed: () => {} };
  }

  /** Stores, held by this process, the first deliveries whose attempt has waited in a queue for storeQueuedAfterMs. */
  private storeLongQueued(): void {
    const cutoff = Date.now() - this.deps.policy.storeQueuedAfterMs;
    for (const waiting of this.unstored.values()) {
      if (waiting.attempting || waiting.queuedAt > cutoff) continue;
      const id = waiting.delivery._id;
      this.unstored.delete(id);
      const now = this.deps.clock();
      const held: DeliveryDocument = { ...waiting.delivery, lockOwner: this.deps.owner, lockedUntil: new Date(now.getTime() + this.deps.policy.claimTtlMs), updatedAt: now };
      const created = this.inserts.add(held);
      // Handled here; awaited again when the attempt runs (if it ever does: a stop drops queued attempts).
      created.then(waiting.stored, waiting.failed);
      this.storedWhileQueued.set(id, { held, created });
    }
    if ([...this.unstored.values()].every((waiting) => waiting.attempting)) {
      clearInterval(this.checkpointTimer);
      this.checkpointTimer = undefined;
    }
  }
}

/** The same waiting delivery, telling one more listener how its store ends. */
function chain(waiting: UnstoredDelivery, resolve: () => void, reject: (err: unknown) => void): UnstoredDelivery {
  return {
    ...waiting,
    stored: () => {
      waiting.stored();
      resolve();
    },
    failed: (err) => {
      waiting.failed(err);
      reject(err);
    },
  };
}
