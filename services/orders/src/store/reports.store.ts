import { scoped, type Collection, type Db, type Filter, type Scope, type UpdateFilter } from '@checkout/mongo';
import type { ReportOutcome, ReportRef, StoredReports } from '../domain/report-ports';
import { COLLECTIONS } from './indexes';
import type { ReportDocument, ReportLease } from './report.document';

/** The filter of one report: its id and its merchant, the whole shard key (ORDER_SHARDING). */
const one = (report: ReportRef) => ({ _id: report._id, organizationId: report.organizationId, mode: report.mode });

/**
 * The only code that touches the reports collection (D52); tenant reads are scoped, the runner's name a report by
 * its shard key, but the poll's claim, which takes the oldest of any merchant.
 */
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

  claim(lease: ReportLease, now: Date, report?: ReportRef): Promise<ReportDocument | null> {
    const free: Filter<ReportDocument> = {
      status: 'pending',
      $or: [{ lease: { $exists: false } }, { 'lease.until': { $lt: now } }],
      ...(report !== undefined && one(report)),
    };
    return this.collection.findOneAndUpdate(
      free,
      { $set: { lease }, $inc: { attempts: 1, revision: 1 } },
      { returnDocument: 'after', sort: { createdAt: 1 } },
    );
  }

  async renew(report: ReportRef, lease: ReportLease): Promise<boolean> {
    const renewed = await this.collection.updateOne(
      { ...one(report), status: 'pending', 'lease.owner': lease.owner },
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
      { ...one(doc), status: 'pending', 'lease.owner': owner },
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

  async remove(report: ReportRef): Promise<void> {
    await this.collection.deleteOne(one(report));
  }
}
