import { scoped, type Collection, type Db, type Filter, type Scope, type UpdateFilter } from '@checkout/mongo';
import type { ReportOutcome, StoredReports } from '../domain/report-ports';
import { COLLECTIONS } from './indexes';
import type { ReportDocument, ReportLease } from './report.document';

/** The only code that touches the reports collection (D52); tenant reads are scoped, the runner's are by id. */
export class ReportsStore implements StoredReports {
  readonly collection: Collection<ReportDocument>;

  constructor(db: Db) {
    this.collection = db.collection<ReportDocument>(COLLECTIONS.reports);
  }

  async insertOnce(scope: Scope, doc: Omit<ReportDocument, 'organizationId' | 'mode'>): Promise<ReportDocument> {
    const { doc: stored } = await scoped(this.collection, scope).insertOnce(doc);
    // Held by another tenant's report: ids derived from a key name the tenant too, so this cannot happen.
    if (!stored) throw new Error(`report ${doc._id} exists outside this organization and mode`);
    return stored;
  }

  get(scope: Scope, id: string): Promise<ReportDocument | null> {
    return scoped(this.collection, scope).findOne({ _id: id });
  }

  claim(lease: ReportLease, now: Date, id?: string): Promise<ReportDocument | null> {
    const free: Filter<ReportDocument> = {
      status: 'pending',
      $or: [{ lease: { $exists: false } }, { 'lease.until': { $lt: now } }],
      ...(id !== undefined && { _id: id }),
    };
    return this.collection.findOneAndUpdate(
      free,
      { $set: { lease }, $inc: { attempts: 1, revision: 1 } },
      { returnDocument: 'after', sort: { createdAt: 1 } },
    );
  }

  async renew(id: string, lease: ReportLease): Promise<boolean> {
    const renewed = await this.collection.updateOne(
      { _id: id, status: 'pending', 'lease.owner': lease.owner },
      { $set: { 'lease.until': lease.until } },
    );
    return renewed.matchedCount === 1;
  }

  /** One conditional update naming the lease: the status, what the run found, and the event it owes, together. */
  async finish(
    doc: ReportDocument,
    owner: string,
    outcome: ReportOutcome,
    withEvent: (finished: ReportDocument) => ReportDocument,
  ): Promise<ReportDocument | null> {
    const { lease: _lease, ...rest } = doc;
    const finished = withEvent({ ...rest, ...outcome });
    const events = finished.outbox.slice(doc.outbox.length);
    return this.collection.findOneAndUpdate(
      { _id: doc._id, status: 'pending', 'lease.owner': owner },
      {
        $set: { ...outcome, outboxPending: true },
        $push: { outbox: { $each: events } },
        $unset: { lease: '' },
        $inc: { revision: 1 },
      } as unknown as UpdateFilter<ReportDocument>,
      { returnDocument: 'after' },
    );
  }

  expired(now: Date, limit: number): Promise<ReportDocument[]> {
    return this.collection
      .find({ expiresAt: { $lte: now } })
      .limit(limit)
      .toArray();
  }

  async remove(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id });
  }
}
