import { insertManyOnce, scoped, type Collection, type Db, type Filter, type Scope } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';
import type { EventDocument } from './event.document';
import type { EventListFilter, EventReads } from '../domain/ports';
import type { EventRecords } from '../domain/engine/records';

function eventQuery(filter: EventListFilter): Filter<EventDocument> {
  const query: Filter<EventDocument> = {};
  if (filter.type) query.type = filter.type;
  if (filter.sessionId) query.sessionId = filter.sessionId;
  if (filter.createdAfter !== undefined || filter.createdBefore !== undefined)
    query.createdAt = {
      ...(filter.createdAfter !== undefined && { $gte: filter.createdAfter }),
      ...(filter.createdBefore !== undefined && { $lt: filter.createdBefore }),
    };
  return query;
}

/** The only code that touches the events collection. */
export class EventsStore implements EventRecords, EventReads {
  readonly collection: Collection<EventDocument>;

  constructor(db: Db) {
    this.collection = db.collection<EventDocument>(COLLECTIONS.events);
  }

  /**
   * Records many events (of any scopes) in one command; each is recorded once: the insert decides, and a duplicate
   * leaves the stored event unchanged. For an id already stored the stored event is returned (one more read, only when
   * there are such ids).
   */
  async recordEvents(docs: readonly EventDocument[]): Promise<Map<string, { event: EventDocument; created: boolean }>> {
    const duplicates = await insertManyOnce(this.collection, docs);
    const stored = duplicates.size === 0 ? [] : await this.collection.find({ _id: { $in: [...duplicates] } }).toArray();
    const byId = new Map(stored.map((event) => [event._id, event]));
    const results = new Map<string, { event: EventDocument; created: boolean }>();
    for (const doc of docs) {
      if (!duplicates.has(doc._id)) {
        results.set(doc._id, { event: doc, created: true });
        continue;
      }
      const existing = byId.get(doc._id);
      // The same id in another scope would be a producer bug; nothing of the other tenant's event may leak.
      if (!existing || existing.organizationId !== doc.organizationId || existing.mode !== doc.mode) {
        throw new Error(`event ${doc._id} exists under another organization or mode`);
      }
      results.set(doc._id, { event: existing, created: false });
    }
    return results;
  }

  getEvent(scope: Scope, id: string): Promise<EventDocument | null> {
    return scoped(this.collection, scope).findOne({ _id: id });
  }

  /** The events of these ids in this scope, in one read (ids of other scopes simply match nothing). */
  async getEvents(scope: Scope, ids: readonly string[]): Promise<Map<string, EventDocument>> {
    if (ids.length === 0) return new Map();
    const found = await scoped(this.collection, scope)
      .find({ _id: { $in: [...ids] } })
      .toArray();
    return new Map(found.map((event) => [event._id, event]));
  }

  async listEvents(
    scope: Scope,
    filter: EventListFilter,
    page: number,
    limit: number,
  ): Promise<{ events: EventDocument[]; total: number }> {
    const events = scoped(this.collection, scope);
    const query = eventQuery(filter);
    const [list, total] = await Promise.all([
      events
        .find(query)
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .toArray(),
      events.countDocuments(query),
    ]);
    return { events: list, total };
  }

  /** The same page without the count (D47's dashboard): one more is fetched to tell whether another page follows. */
  async listEventsPage(
    scope: Scope,
    filter: EventListFilter,
    page: number,
    limit: number,
  ): Promise<{ events: EventDocument[]; hasMore: boolean }> {
    const list = await scoped(this.collection, scope)
      .find(eventQuery(filter))
      .sort({ createdAt: -1, _id: -1 })
      .skip((page - 1) * limit)
      .limit(limit + 1)
      .toArray();
    return { events: list.slice(0, limit), hasMore: list.length > limit };
  }

  /**
   * One page of the events created at or after `from`, oldest first, from just after `after` (D50: what an endpoint
   * missed while it was disabled, read a page at a time).
   */
  listCreatedSince(
    scope: Scope,
    from: Date,
    after: Pick<EventDocument, '_id' | 'createdAt'> | undefined,
    limit: number,
  ): Promise<EventDocument[]> {
    const filter: Filter<EventDocument> = after
      ? {
          $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, _id: { $gt: after._id } }],
        }
      : { createdAt: { $gte: from } };
    return scoped(this.collection, scope).find(filter).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
  }
}
