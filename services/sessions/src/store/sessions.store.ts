import type { Collection, Db } from 'mongodb';
import { scoped, type InsertOnceResult, type Scope } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';
import type { SessionDocument } from './session.document';

/** The only code that touches the sessions collection. Payments are stored once, in orders. */
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

  /** NOT tenant-scoped: the expiry sweeper's query (flow 4), served by the status_expiresAt index. */
  findDuePendingAcrossTenants(now: Date, limit: number): Promise<SessionDocument[]> {
    return this.collection
      .find({ status: 'pending', expiresAt: { $lte: now } })
      .sort({ expiresAt: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * Writes `next` over `current` if the stored session is still the one read (its revision): one conditional
   * update. null when another writer got there first; the caller re-reads and decides again.
   */
  replaceSession(scope: Scope, current: SessionDocument, next: SessionDocument): Promise<SessionDocument | null> {
    return scoped(this.collection, scope).replaceIfUnchanged(current, next);
  }

  /** A declined attempt on a pending session: one $inc, null if the session is no longer pending. */
  countDeclined(scope: Scope, id: string, now: Date): Promise<SessionDocument | null> {
    return scoped(this.collection, scope).findOneAndUpdate(
      { _id: id, status: 'pending' },
      { $inc: { failedAttempts: 1, revision: 1 }, $set: { updatedAt: now } },
    );
  }
}
