import { scoped, type Collection, type Db, type Scope, type ScopedDocument } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';

/**
 * A keyless write whose outcome its client never learned (a 5xx, a timeout): the record id its owner was given, kept
 * for the identical retry. Stored beside the Idempotency-Key records, whose sweep (by `expiresAt`) reclaims these
 * too; the `unanswered:` prefix of the id never meets a key record's (base64url, no colon).
 */
interface UnansweredWriteDocument extends ScopedDocument {
  _id: string;
  record: string;
  createdAt: Date;
  expiresAt: Date;
}

export class UnansweredWritesStore {
  private readonly collection: Collection<UnansweredWriteDocument>;

  constructor(
    db: Db,
    private readonly options: { retentionMs: number },
  ) {
    this.collection = db.collection<UnansweredWriteDocument>(COLLECTIONS.idempotencyKeys);
  }

  /** The record id the unanswered try of this intent was given, if one is still kept. */
  async find(scope: Scope, intent: string, now: Date): Promise<string | null> {
    const doc = await scoped(this.collection, scope).findOne({ _id: intent, expiresAt: { $gt: now } });
    return doc?.record ?? null;
  }

  /**
   * Keeps the record id of a try that ended unanswered; one already kept for the intent stays (it is the try a
   * retry must meet: concurrent identical tries that all failed pair their retries with the first one kept).
   */
  async remember(scope: Scope, intent: string, record: string, now: Date): Promise<void> {
    const expiresAt = new Date(now.getTime() + this.options.retentionMs);
    const kept = await scoped(this.collection, scope).updateOne(
      { _id: intent, expiresAt: { $gt: now } },
      { $set: { expiresAt } },
    );
    if (kept) return;
    await this.collection.replaceOne(
      { _id: intent },
      { _id: intent, record, createdAt: now, expiresAt, ...scope },
      { upsert: true },
    );
  }

  /** The intent was answered: an identical write from now on is a new one. */
  async forget(intent: string, record: string): Promise<void> {
    await this.collection.deleteOne({ _id: intent, record });
  }
}
