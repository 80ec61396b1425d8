import { randomUUID } from 'node:crypto';
import {
  insertManyOnce,
  isDuplicateKeyError,
  scoped,
  type Collection,
  type Db,
  type Filter,
  type Scope,
} from '@checkout/mongo';
import type { BalanceTransactionType } from '@checkout/contracts';
import { COLLECTIONS } from './indexes';
import type { BalanceTransactionDocument } from './balance-transaction.document';

/** The totals of one UTC day of movements (the dashboard's chart). */
interface DayTotals {
  payments: number;
  refunds: number;
  count: number;
}

/** What a balance is kept for: an organization, a mode, and one currency (lines of two currencies never add up). */
export interface BalanceScope extends Scope {
  currency: string;
}

/**
 * The balance of one scope (collection `balances`): the totals of its counted lines, and per UTC day of their
 * createdAt. Only the counting step writes it (docs/books.md, "The counting").
 */
export interface BalanceDocument extends Scope {
  /** `<organizationId>/<mode>/<currency>`. */
  _id: string;
  currency: string;
  payments: number;
  refunds: number;
  count: number;
  /** By UTC day, `YYYY-MM-DD`. */
  days: Record<string, DayTotals>;
  /** Batches committed so far: the state a commit expects, so that a batch read before another commit is refused. */
  batches: number;
  /** A batch in the totals whose lines may not be marked counted yet; null when none. */
  pending: { batch: string; ids: string[] } | null;
  updatedAt: Date;
}

/** Filters of the list (D52), each optional; the window is [createdAfter, createdBefore). */
export interface BalanceLineFilter {
  type?: BalanceTransactionType;
  orderId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** A line to store: the document but `counted`, which the store sets (false) when it inserts it. */
export type NewBalanceTransaction = Pick<
  BalanceTransactionDocument,
  | '_id'
  | 'organizationId'
  | 'mode'
  | 'type'
  | 'orderId'
  | 'sourceId'
  | 'amount'
  | 'currency'
  | 'createdAt'
  | 'recordedAt'
>;

/** What the counting reads of a line. */
type CountedFields = Pick<BalanceTransactionDocument, '_id' | 'amount' | 'createdAt'>;

/** At most this many lines go into one commit of the counting: one update's `$inc`, one `pending` list. */
const COUNT_BATCH_MAX = 200;
const COUNT_ATTEMPTS_MAX = 20;

const balanceId = (scope: BalanceScope) => `${scope.organizationId}/${scope.mode}/${scope.currency}`;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** The `$inc` of one batch: the totals and the totals of each day its lines fall on. */
function incrementsOf(lines: readonly CountedFields[]): Record<string, number> {
  const inc: Record<string, number> = { payments: 0, refunds: 0, count: 0, batches: 1 };
  const add = (field: string, by: number) => {
    inc[field] = (inc[field] ?? 0) + by;
  };
  for (const line of lines) {
    const day = `days.${dayOf(line.createdAt)}`;
    const [field, by] = line.amount >= 0 ? ['payments', line.amount] : ['refunds', -line.amount];
    add(field, by);
    add('count', 1);
    add(`${day}.${field}`, by);
    add(`${day}.count`, 1);
  }
  return inc;
}

/**
 * One line waiting to be counted (collection `balance_queue`): kept apart from the lines so that what the counting
 * and `asOf` read is small whatever the number of lines (the local engine serves only `_id` from an index; every
 * other query scans). Removed once its line is counted.
 */
export interface QueuedLineDocument extends CountedFields {
  organizationId: string;
  mode: BalanceScope['mode'];
  currency: string;
  recordedAt: Date;
}

/** A line's entry in the queue: what the counting adds, and when it was recorded (asOf). */
export function queueEntryOf(line: NewBalanceTransaction): QueuedLineDocument {
  const { _id, organizationId, mode, currency, amount, createdAt, recordedAt } = line;
  return { _id, organizationId, mode, currency, amount, createdAt, recordedAt };
}

/**
 * The only code touching `balance_transactions`, `balance_queue` and `balances`. Lines are inserted once by their
 * derived `_id`, uncounted, each with an entry in the queue; the counting adds each to its scope's balance exactly
 * once, without a multi-document transaction (the engines have none), by a two-phase commit on the balance document
 * (`countStep`). Every read of the lines is by `_id`; the other reads are of the queue and of the balances.
 */
export class BalanceStore {
  readonly lines: Collection<BalanceTransactionDocument>;
  readonly queue: Collection<QueuedLineDocument>;
  readonly balances: Collection<BalanceDocument>;

  constructor(db: Db) {
    this.lines = db.collection<BalanceTransactionDocument>(COLLECTIONS.balanceTransactions);
    this.queue = db.collection<QueuedLineDocument>(COLLECTIONS.balanceQueue);
    this.balances = db.collection<BalanceDocument>(COLLECTIONS.balances);
  }

  /**
   * Inserts the lines not stored yet, uncounted, then queues every line still uncounted; says how many lines it
   * inserted. The ids are read first (by `_id`), so a replay of a counted order's event writes nothing; the inserts
   * arbitrate a racing inserter on the unique `_id`s. The line goes first: an entry never names a line that is not
   * there, and a stop between the two leaves an uncounted line that the event's redelivery queues. An entry queued
   * again for a line counted meanwhile is dropped by the counting, which reads the line's flag (`countStep`).
   */
  async insertMissing(scope: Scope, lines: readonly NewBalanceTransaction[]): Promise<number> {
    if (lines.length === 0) return 0;
    const flags = await this.countedFlags(
      scope,
      lines.map((l) => l._id),
    );
    const counted = new Set([...flags].filter(([, flag]) => flag).map(([id]) => id));
    const have = new Set(flags.keys());
    const missing = lines
      .filter((l) => !have.has(l._id))
      .map((l): BalanceTransactionDocument => ({ ...l, counted: false }));
    const duplicates =
      missing.length === 0 ? new Set<string>() : await insertManyOnce<BalanceTransactionDocument>(this.lines, missing);
    const waiting = lines.filter((l) => !counted.has(l._id)).map(queueEntryOf);
    if (waiting.length > 0) await insertManyOnce<QueuedLineDocument>(this.queue, waiting);
    return missing.length - duplicates.size;
  }

  /**
   * One step of the counting of a scope; the number of lines it added to the totals (0: nothing left to count).
   * (0) a batch left pending by a step that stopped half-way is finished first; (1) the balance, then up to
   * COUNT_BATCH_MAX queued lines, then those lines' `counted` flags are read (an entry whose line is counted
   * already, queued again by a redelivery, is dropped); (2) one conditional update adds them to the totals and
   * records them as pending, only if no batch is pending and no other batch was committed since (1)'s read of the
   * balance; (3) the lines are marked counted and their entries removed; (4) `pending` is cleared, naming the batch.
   * Every batch committed before (1) was through (3) when (1) read the balance, so (1) sees its lines counted; one
   * committed after makes (2) refuse. So no line is added twice, whatever crashes, replays or concurrent steps: a
   * step that loses (2) comes back, finishing what won.
   */
  async countStep(scope: BalanceScope, now: Date): Promise<number> {
    // Each lost commit is another step's won one; past this many in a row, the sweep's next round goes on.
    for (let attempt = 0; attempt < COUNT_ATTEMPTS_MAX; attempt++) {
      const balance = await this.balanceForCounting(scope, now);
      if (balance.pending) {
        await this.finishBatch(scope, balance.pending);
        continue;
      }
      const lines = await this.uncounted(scope, COUNT_BATCH_MAX);
      if (lines.length === 0) return 0;
      const batch = await this.commitBatch(scope, balance.batches, lines, now);
      if (batch === null) continue;
      await this.finishBatch(scope, batch);
      return lines.length;
    }
    return 0;
  }

  /** Counting until nothing is left in the scope; how many lines were added. */
  async countAll(scope: BalanceScope, now: () => Date): Promise<number> {
    let total = 0;
    for (let added = await this.countStep(scope, now()); added > 0; added = await this.countStep(scope, now()))
      total += added;
    return total;
  }

  /** The scope's balance document, made (all zeros) if it does not exist yet. */
  async balanceForCounting(scope: BalanceScope, now: Date): Promise<BalanceDocument> {
    const _id = balanceId(scope);
    const found = await this.balances.findOne({ _id });
    if (found) return found;
    const fresh: BalanceDocument = {
      _id,
      organizationId: scope.organizationId,
      mode: scope.mode,
      currency: scope.currency,
      payments: 0,
      refunds: 0,
      count: 0,
      days: {},
      batches: 0,
      pending: null,
      updatedAt: now,
    };
    // Whoever inserts first makes it; the others read it (an upsert with $setOnInsert, so nothing is overwritten).
    const { _id: _, ...fields } = fresh;
    await this.balances.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true }).catch((err: unknown) => {
      if (!isDuplicateKeyError(err)) throw err;
    });
    return (await this.balances.findOne({ _id })) ?? fresh;
  }

  /**
   * Up to `limit` queued lines of the scope, oldest recorded first, less those already counted: their entries,
   * queued again by a redelivery that read the line before it was counted, are removed here.
   */
  async uncounted(scope: BalanceScope, limit: number): Promise<CountedFields[]> {
    const queued = await scoped(this.queue, scope)
      .find({ currency: scope.currency })
      .sort({ recordedAt: 1 })
      .limit(limit)
      .toArray();
    if (queued.length === 0) return [];
    const flags = await this.countedFlags(
      scope,
      queued.map((q) => q._id),
    );
    const done = new Set([...flags].filter(([, flag]) => flag).map(([id]) => id));
    if (done.size > 0) await this.queue.deleteMany({ _id: { $in: [...done] } });
    return queued.filter((q) => !done.has(q._id));
  }

  /**
   * The `counted` flag of each stored line of `ids`, one read by `_id` each, side by side: the local engine answers
   * a plain `_id` from its index but scans the collection for `_id: {$in}` (docs/engines.md), and the lines grow
   * without bound, while the ids asked for are an order's lines or a batch. Each names its merchant beside its id:
   * the whole shard key (ORDER_SHARDING), one shard on a sharded cluster.
   */
  private async countedFlags(scope: Scope, ids: readonly string[]): Promise<Map<string, boolean>> {
    const lines = scoped(this.lines, scope);
    const found = await Promise.all(ids.map((_id) => lines.findOne({ _id }, { projection: { _id: 1, counted: 1 } })));
    return new Map(found.filter((l) => l !== null).map((l) => [l._id, l.counted]));
  }

  /**
   * Phase one: adds `lines` to the totals and records them as pending in one conditional update, only if the
   * balance still has `batches` committed and nothing pending. The batch, or null when another step got there first.
   */
  async commitBatch(
    scope: BalanceScope,
    batches: number,
    lines: readonly CountedFields[],
    now: Date,
  ): Promise<BalanceDocument['pending']> {
    const pending = { batch: randomUUID(), ids: lines.map((l) => l._id) };
    const result = await this.balances.updateOne(
      { _id: balanceId(scope), batches, pending: null },
      { $inc: incrementsOf(lines), $set: { pending, updatedAt: now } },
    );
    return result.matchedCount === 1 ? pending : null;
  }

  /**
   * Phase two: the batch's lines marked counted, their entries removed (in this order: an entry outlives its line's
   * flag), then `pending` cleared if it is still this batch. Idempotent.
   */
  async finishBatch(scope: BalanceScope, pending: NonNullable<BalanceDocument['pending']>): Promise<void> {
    await this.markCounted(scope, pending.ids);
    await this.queue.deleteMany({ _id: { $in: [...pending.ids] } });
    await this.balances.updateOne(
      { _id: balanceId(scope), 'pending.batch': pending.batch },
      { $set: { pending: null } },
    );
  }

  /** One command, each line updated by its `_id` and its merchant (see countedFlags). */
  async markCounted(scope: Scope, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { organizationId, mode } = scope;
    await this.lines.bulkWrite(
      ids.map((_id) => ({
        updateOne: { filter: { _id, organizationId, mode, counted: false }, update: { $set: { counted: true } } },
      })),
      { ordered: false },
    );
  }

  /**
   * The scopes with a line recorded before `before` still uncounted, or a batch pending since before it: what the
   * sweep counts (a consumer that stopped between its insert and its count leaves them).
   */
  async scopesToCount(before: Date, limit: number): Promise<BalanceScope[]> {
    const uncounted = await this.queue
      .aggregate<{ _id: BalanceScope }>([
        { $match: { recordedAt: { $lt: before } } },
        { $group: { _id: { organizationId: '$organizationId', mode: '$mode', currency: '$currency' } } },
        { $limit: limit },
      ])
      .toArray();
    const pending = await this.balances
      .find({ 'pending.batch': { $exists: true }, updatedAt: { $lt: before } }, { limit })
      .project<Pick<BalanceDocument, 'organizationId' | 'mode' | 'currency'>>({
        organizationId: 1,
        mode: 1,
        currency: 1,
      })
      .toArray();
    const byId = new Map<string, BalanceScope>();
    for (const s of [...uncounted.map((u) => u._id), ...pending]) {
      const scope = { organizationId: s.organizationId, mode: s.mode, currency: s.currency };
      byId.set(balanceId(scope), scope);
    }
    return [...byId.values()];
  }

  /** The balance as stored (null: nothing counted yet), and when its oldest uncounted line was recorded. */
  async readBalance(scope: BalanceScope): Promise<{ balance: BalanceDocument | null; oldestUncounted: Date | null }> {
    // The queue first: a line counted between the two reads is then in the totals read after it.
    const oldest = await scoped(this.queue, scope)
      .find({ currency: scope.currency }, { projection: { recordedAt: 1 } })
      .sort({ recordedAt: 1 })
      .limit(1)
      .toArray();
    const balance = await this.balances.findOne({ _id: balanceId(scope) });
    return { balance, oldestUncounted: oldest[0]?.recordedAt ?? null };
  }

  /** D52's list: newest first (createdAt, then id), with its total. */
  async list(
    scope: Scope,
    filter: BalanceLineFilter,
    page: number,
    limit: number,
  ): Promise<{ lines: BalanceTransactionDocument[]; total: number }> {
    const query: Filter<BalanceTransactionDocument> = {};
    if (filter.type) query.type = filter.type;
    if (filter.orderId !== undefined) query.orderId = filter.orderId;
    if (filter.createdAfter || filter.createdBefore)
      query.createdAt = {
        ...(filter.createdAfter && { $gte: filter.createdAfter }),
        ...(filter.createdBefore && { $lt: filter.createdBefore }),
      };
    const lines = scoped(this.lines, scope);
    const [page_, total] = await Promise.all([
      lines
        .find(query)
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .toArray(),
      lines.countDocuments(query),
    ]);
    return { lines: page_, total };
  }

  getLine(scope: Scope, id: string): Promise<BalanceTransactionDocument | null> {
    return scoped(this.lines, scope).findOne({ _id: id });
  }
}
