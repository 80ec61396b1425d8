import {
  scoped,
  type Collection,
  type Db,
  type Filter,
  type InsertOnceResult,
  type Scope,
  type UpdateFilter,
} from '@checkout/mongo';
import { outboxPush, type OutboxEntry } from '@checkout/kafka';
import { COLLECTIONS } from './indexes';
import type { CollectedInputs, OrderCopy, SessionDocument } from './session.document';

/**
 * Every named write bumps `revision`, which none of them reads: a whole-document replace made on an older read
 * (`replaceIfUnchanged`, libs/mongo: how a version before the named writes writes a session, while a rolling
 * deploy runs both) then loses instead of writing over the change, as it does after the outbox relay's marks.
 */
const BUMP = { $inc: { revision: 1 } } as const;

/**
 * The only code that touches the sessions collection. Payments are stored once, in orders.
 *
 * Every change of a session is one of the named writes below: one `findOneAndUpdate` whose filter holds the
 * state the change was decided on, and which sets the change and, where it fires one, records its event in the
 * document's outbox (the storage rule: a state change and its event are one document write). Each returns the
 * session as written, or null when the stored session is no longer in that state: another writer got there
 * first, and the caller reads what won (domain/session-writes.ts). Nothing is locked and nothing is replaced
 * whole.
 */
export class SessionsStore {
  readonly collection: Collection<SessionDocument>;

  constructor(db: Db) {
    this.collection = db.collection<SessionDocument>(COLLECTIONS.sessions);
  }

  /** Inserts a session once; a session already under its id (derived from an Idempotency-Key) is returned as stored. */
  insertSession(
    scope: Scope,
    doc: Omit<SessionDocument, 'organizationId' | 'mode'>,
  ): Promise<InsertOnceResult<SessionDocument>> {
    return scoped(this.collection, scope).insertOnce(doc);
  }

  getSession(scope: Scope, id: string): Promise<SessionDocument | null> {
    return scoped(this.collection, scope).findOne({ _id: id });
  }

  /** D47: the dashboard's sessions list, newest first (D20's order), served by org_mode_createdAt_id. */
  async listSessions(
    scope: Scope,
    page: number,
    limit: number,
  ): Promise<{ sessions: SessionDocument[]; total: number }> {
    const sessions = scoped(this.collection, scope);
    const [list, total] = await Promise.all([
      sessions
        .find({})
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .toArray(),
      sessions.countDocuments({}),
    ]);
    return { sessions: list, total };
  }

  findByOrderId(scope: Scope, orderId: string): Promise<SessionDocument | null> {
    return scoped(this.collection, scope).findOne({ orderId });
  }

  /**
   * NOT tenant-scoped: for callers that hold no tenant context and are identified by the session id alone,
   * i.e. the public hosted page (the unguessable id is the capability) and signed processor notifications.
   * The scope of everything that follows is taken from the document found here.
   */
  findByIdAcrossTenants(id: string): Promise<SessionDocument | null> {
    return this.collection.findOne({ _id: id });
  }

  /** NOT tenant-scoped: the expiry sweeper's query (D21), served by the status_expiresAt index. */
  findDuePendingAcrossTenants(now: Date, limit: number): Promise<SessionDocument[]> {
    return this.collection
      .find({ status: 'pending', expiresAt: { $lte: now } })
      .sort({ expiresAt: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * The order was paid in full (D28): a pending session completes with its `checkout.session.completed`, and
   * `copy` (orders' answer, when newer than the read's) as its order copy. Conditional on the session still
   * pending and its stored copy no newer than the one the event shows.
   */
  complete(
    scope: Scope,
    read: SessionDocument,
    change: { copy?: OrderCopy | undefined; event: OutboxEntry; now: Date },
  ): Promise<SessionDocument | null> {
    return this.settle(scope, read, change.copy, { status: 'completed', updatedAt: change.now }, change.event);
  }

  /**
   * Its expiresAt passed, or the test helper expires it now (D21, D29; expiresAt is then set to now): a pending
   * session expires with its `checkout.session.expired`. Also conditional on the expiresAt it was judged by, so
   * an extension stored in between is never expired.
   */
  expire(
    scope: Scope,
    read: SessionDocument,
    change: { copy?: OrderCopy | undefined; expiresAt: Date; event: OutboxEntry; now: Date },
  ): Promise<SessionDocument | null> {
    return this.settle(
      scope,
      read,
      change.copy,
      { status: 'expired', expiresAt: change.expiresAt, updatedAt: change.now },
      change.event,
      { expiresAt: read.expiresAt },
    );
  }

  /** Its order was cancelled (D25): a pending session is cancelled, with the cancelled order as its copy; no event. */
  cancel(
    scope: Scope,
    read: SessionDocument,
    change: { copy?: OrderCopy | undefined; now: Date },
  ): Promise<SessionDocument | null> {
    return this.settle(scope, read, change.copy, { status: 'cancelled', updatedAt: change.now });
  }

  /**
   * A newer copy of the order, nothing else (a partial payment, an edit of the order, any order event): only if
   * the stored copy is older. `settledOnly`: the copy shows the order completed or cancelled, which a pending
   * session takes only with the status it owes (complete, cancel), never on its own.
   */
  takeOrderCopy(scope: Scope, id: string, copy: OrderCopy, settledOnly: boolean): Promise<SessionDocument | null> {
    return scoped(this.collection, scope).findOneAndUpdate(
      { _id: id, orderRevision: { $lt: copy.orderRevision }, ...(settledOnly && { status: { $ne: 'pending' } }) },
      { $set: copy, ...BUMP },
    );
  }

  /**
   * PATCH (D23): a new expiresAt only while pending and unchanged since `read` (so an expiry or another extension
   * in between is not overtaken), a merged sessionData only over the one it was merged from, in any status.
   */
  updateSession(
    scope: Scope,
    read: SessionDocument,
    change: { expiresAt?: Date | undefined; sessionDataJson?: string | undefined; now: Date },
  ): Promise<SessionDocument | null> {
    const filter: Filter<SessionDocument> = { _id: read._id };
    const set: Partial<SessionDocument> = { updatedAt: change.now };
    if (change.expiresAt !== undefined) Object.assign(filter, { status: 'pending', expiresAt: read.expiresAt });
    if (change.expiresAt !== undefined) set.expiresAt = change.expiresAt;
    if (change.sessionDataJson !== undefined) filter.sessionDataJson = read.sessionDataJson;
    if (change.sessionDataJson !== undefined) set.sessionDataJson = change.sessionDataJson;
    return scoped(this.collection, scope).findOneAndUpdate(filter, { $set: set, ...BUMP });
  }

  /**
   * What the hosted page collected (requireFromCustomer) on a pending session, with orders' answer to the order's
   * update as its copy: over the copy it was read with, so a newer one stored meanwhile is not overwritten.
   */
  collectInputs(
    scope: Scope,
    read: SessionDocument,
    change: { inputs: CollectedInputs; copy?: OrderCopy | undefined; now: Date },
  ): Promise<SessionDocument | null> {
    return scoped(this.collection, scope).findOneAndUpdate(
      { _id: read._id, status: 'pending', orderRevision: read.orderRevision },
      { $set: { collected: { ...read.collected, ...change.inputs }, updatedAt: change.now, ...change.copy }, ...BUMP },
    );
  }

  /** A declined attempt (D27) on a session still pending and not due (D21): one $inc. */
  countDeclined(scope: Scope, id: string, now: Date): Promise<SessionDocument | null> {
    return scoped(this.collection, scope).findOneAndUpdate(
      { _id: id, status: 'pending', expiresAt: { $gt: now } },
      { $inc: { failedAttempts: 1, revision: 1 }, $set: { updatedAt: now } },
    );
  }

  /**
   * complete, expire, cancel: the status a pending session owes, with the order copy it was decided on (a newer
   * copy stored meanwhile wins: the decision is made again on it) and the event it fires, in one write.
   */
  private settle(
    scope: Scope,
    read: SessionDocument,
    copy: OrderCopy | undefined,
    set: Partial<SessionDocument>,
    event?: OutboxEntry,
    expected: Filter<SessionDocument> = {},
  ): Promise<SessionDocument | null> {
    const pushed = event && outboxPush(event);
    return scoped(this.collection, scope).findOneAndUpdate(
      {
        _id: read._id,
        status: 'pending',
        orderRevision: { $lte: (copy ?? read).orderRevision },
        ...expected,
      },
      (pushed
        ? { $set: { ...set, ...copy, ...pushed.$set }, $push: pushed.$push, ...BUMP }
        : { $set: { ...set, ...copy }, ...BUMP }) as unknown as UpdateFilter<SessionDocument>,
    );
  }
}
