import { isDuplicateKeyError, scoped, type Collection, type Db, type Filter, type Scope } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';
import type { WebhookEndpointDocument } from './webhook-endpoint.document';
import type { EndpointStore } from '../domain/ports';
import type { EndpointRecords } from '../domain/engine/records';

/**
 * The only code that touches the webhook endpoints collection (D50). Changes a merchant makes are whole-document
 * rewrites conditional on the revision read (mutate); the dispatcher's own writes (a run of failures, disabling)
 * are conditional updates that bump the revision too, so neither overwrites the other.
 */
export class WebhookEndpointsStore implements EndpointRecords, EndpointStore {
  readonly collection: Collection<WebhookEndpointDocument>;

  constructor(db: Db) {
    this.collection = db.collection<WebhookEndpointDocument>(COLLECTIONS.webhookEndpoints);
  }

  get(scope: Scope, id: string): Promise<WebhookEndpointDocument | null> {
    return scoped(this.collection, scope).findOne({ _id: id });
  }

  /**
   * Inserts the endpoint in a free one of `slots` places: the unique (organizationId, mode, slot) index
   * arbitrates, so of concurrent creates each takes a place of its own and none takes a 17th. null when every
   * place is taken.
   */
  async insertInFreeSlot(
    scope: Scope,
    doc: Omit<WebhookEndpointDocument, 'organizationId' | 'mode' | 'slot'>,
    slots: number,
  ): Promise<{ endpoint: WebhookEndpointDocument; created: boolean } | null> {
    const endpoints = scoped(this.collection, scope);
    // Each lost race means another create took a place, so this ends within `slots` rounds; the bound only
    // guards against a bug.
    for (let round = 0; round <= slots; round += 1) {
      const taken = new Set(
        (await endpoints.find({}, { projection: { slot: 1 } }).toArray()).map((endpoint) => endpoint.slot),
      );
      const free = Array.from({ length: slots }, (_, i) => i).filter((i) => !taken.has(i));
      // A free place drawn at random, not the first: concurrent creates that all chose the first one met on it every
      // round, and on DocumentDB inserts of one unique key deadlock, each costing a second, until some gave up with
      // 503 (docs/engines.md).
      const slot = free[Math.floor(Math.random() * free.length)];
      if (slot === undefined) return null;
      try {
        const stored = { ...doc, slot };
        await endpoints.insertOne(stored);
        const endpoint = {
          ...stored,
          organizationId: scope.organizationId,
          mode: scope.mode,
        } as WebhookEndpointDocument;
        return { endpoint, created: true };
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // Its id already stored (a retried create, whose id derives from its Idempotency-Key): that endpoint is this
        // create's, rather than a lost race for the place.
        const id = String(doc._id);
        const same = await this.get(scope, id);
        if (same) return { endpoint: same, created: false };
      }
    }
    throw new Error(`no free endpoint place after ${slots + 1} rounds`);
  }

  /** Newest first. */
  async list(
    scope: Scope,
    page: number,
    limit: number,
  ): Promise<{ endpoints: WebhookEndpointDocument[]; total: number }> {
    const endpoints = scoped(this.collection, scope);
    const [list, total] = await Promise.all([
      endpoints
        .find({})
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .toArray(),
      endpoints.countDocuments({}),
    ]);
    return { endpoints: list, total };
  }

  /** Every endpoint of these organizations and modes, in one read (the record path's fan-out, D50). */
  ofScopes(scopes: readonly Scope[]): Promise<WebhookEndpointDocument[]> {
    if (scopes.length === 0) return Promise.resolve([]);
    const filter: Filter<WebhookEndpointDocument> = {
      $or: scopes.map(({ organizationId, mode }) => ({ organizationId, mode })),
    };
    return this.collection.find(filter).toArray();
  }

  /** A read-modify-write of the whole endpoint (PATCH, rotation) as one conditional update; null when it is gone. */
  mutate<R>(
    scope: Scope,
    id: string,
    change: (current: WebhookEndpointDocument) => { next: WebhookEndpointDocument | null; result: R },
  ): Promise<{ doc: WebhookEndpointDocument; result: R } | null> {
    return scoped(this.collection, scope).mutate(id, change);
  }

  /** Deletes it; its place is free at once. false when there was none. */
  async delete(scope: Scope, id: string): Promise<boolean> {
    const result = await this.collection.deleteOne(scoped(this.collection, scope).filter({ _id: id }));
    return result.deletedCount === 1;
  }

  /**
   * Moves the start of the endpoint's run of failures (D50) from `from` to `to`, only while it is still `from`: a
   * first failure starts the run (`from` null), a failure that finds a success after the run's start begins it again.
   */
  async moveFailingRun(scope: Scope, id: string, from: Date | null, to: Date): Promise<void> {
    await scoped(this.collection, scope).updateOne(
      { _id: id, failingSince: from },
      { $set: { failingSince: to }, $inc: { revision: 1 } },
    );
  }

  /**
   * Disables an endpoint whose run of failures began at `failingSince` (D50), in one conditional update: only while
   * it is enabled and that run is still the current one. The endpoint as disabled, or null when nothing matched.
   */
  disableFailing(
    scope: Scope,
    id: string,
    failingSince: Date,
    disabled: NonNullable<WebhookEndpointDocument['disabled']>,
  ): Promise<WebhookEndpointDocument | null> {
    return scoped(this.collection, scope).findOneAndUpdate(
      { _id: id, failingSince, disabled: null },
      { $set: { disabled, updatedAt: disabled.at }, $inc: { revision: 1 } },
    );
  }
}
