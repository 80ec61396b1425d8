import type { Mode, Scope } from '@checkout/contracts';
import { DependencyUnavailableError } from '@checkout/errors';
import type {
  Collection,
  Document,
  Filter,
  FindOptions,
  OptionalUnlessRequiredId,
  UpdateFilter,
  WithId,
} from 'mongodb';
import { isDuplicateKeyError } from './errors';
import { retryTransientWriteConflicts } from './write-conflicts';

// The tenant types are libs/contracts' (one declaration for every service); re-exported for the stores.
export type { Mode, Scope };

/** The fields every tenant-owned document carries. */
export interface ScopedDocument extends Document {
  organizationId: string;
  mode: Mode;
  /**
   * Bumped by every replaceIfUnchanged(): the expected state of a read-modify-write of a whole document.
   * Absent on documents never written that way (a filter on null matches them too).
   */
  revision?: number;
}

/** What insertOnce() did: stored `doc`, or found the document holding its key (null: none `holder` finds). */
export type InsertOnceResult<T> = { created: true; doc: WithId<T> } | { created: false; doc: WithId<T> | null };

/**
 * A collection that can only be read and written inside one organization and mode: the scope is merged into
 * every filter and every insert here, so no store function can forget it.
 */
export class ScopedCollection<T extends ScopedDocument> {
  constructor(
    private readonly collection: Collection<T>,
    readonly scope: Scope,
  ) {}

  filter(filter: Filter<T> = {}): Filter<T> {
    return { ...filter, organizationId: this.scope.organizationId, mode: this.scope.mode };
  }

  /**
   * The tenant is part of every filter, a lookup by _id included: MongoDB serves {_id, organizationId, mode}
   * from the _id index and checks the other two fields on the one document it finds.
   */
  findOne(filter: Filter<T>, options?: FindOptions): Promise<WithId<T> | null> {
    return this.collection.findOne(this.filter(filter), options);
  }

  find(filter: Filter<T>, options?: FindOptions) {
    return this.collection.find(this.filter(filter), options);
  }

  countDocuments(filter: Filter<T>): Promise<number> {
    return this.collection.countDocuments(this.filter(filter));
  }

  /** Inserts `doc` in this scope, again if the engine refused it as a transient write conflict (write-conflicts.ts). */
  async insertOne(doc: Omit<T, 'organizationId' | 'mode'>): Promise<void> {
    await retryTransientWriteConflicts(() => this.collection.insertOne(this.scopedDocument(doc)));
  }

  /**
   * Inserts `doc` unless a unique index already holds one of its keys: the insert arbitrates, never a read
   * before it (concurrent inserters meet on the index). When refused as a duplicate, the document that holds the
   * key is read by `holder` (default: the same _id), one more round trip only then. `doc: null` with
   * `created: false`: the key is held by a document `holder` does not find (another unique key, or the same
   * _id in another organization or mode); what that means is the caller's to say. An insert the engine refused as
   * a transient write conflict (DocumentDB's deadlock between inserts of one key) reads `holder` first, and is
   * tried again only if nobody holds the key yet.
   */
  async insertOnce(
    doc: Omit<T, 'organizationId' | 'mode'>,
    holder: Filter<T> = { _id: doc._id },
  ): Promise<InsertOnceResult<T>> {
    const stored = this.scopedDocument(doc);
    const held = async (): Promise<InsertOnceResult<T> | undefined> => {
      const holding = await this.findOne(holder);
      return holding ? { created: false, doc: holding } : undefined;
    };
    try {
      return await retryTransientWriteConflicts(async () => {
        await this.collection.insertOne(stored);
        return { created: true, doc: stored as unknown as WithId<T> };
      }, held);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    return { created: false, doc: await this.findOne(holder) };
  }

  private scopedDocument(doc: Omit<T, 'organizationId' | 'mode'>): OptionalUnlessRequiredId<T> {
    return { ...doc, organizationId: this.scope.organizationId, mode: this.scope.mode } as OptionalUnlessRequiredId<T>;
  }

  /** One conditional update inside this scope (the expected state goes in `filter`); null when nothing matched. */
  findOneAndUpdate(filter: Filter<T>, update: UpdateFilter<T>): Promise<WithId<T> | null> {
    return this.collection.findOneAndUpdate(this.filter(filter), update, { returnDocument: 'after' });
  }

  /** One conditional update inside this scope; true when a document matched. */
  async updateOne(filter: Filter<T>, update: UpdateFilter<T>): Promise<boolean> {
    return (await this.collection.updateOne(this.filter(filter), update)).matchedCount === 1;
  }

  /**
   * Writes `next` in place of `current` only if the stored document is still the one read (same revision):
   * a read-modify-write of a whole document as one conditional update, for changes computed by pure domain
   * rules. Returns the stored document, or null when someone else wrote first: the caller re-reads and
   * re-applies its rule to what is there now (optimistic concurrency; nothing is locked).
   */
  async replaceIfUnchanged(current: WithId<T>, next: T): Promise<WithId<T> | null> {
    const read: number | undefined = (current as ScopedDocument).revision;
    const revision = nextRevision(read);
    const stored = {
      ...next,
      _id: current._id,
      organizationId: this.scope.organizationId,
      mode: this.scope.mode,
      revision,
    } as unknown as WithId<T>;
    const filter = this.filter({ _id: current._id, revision: read ?? null } as Filter<T>);
    const result = await this.collection.replaceOne(filter, stored as unknown as T);
    return result.matchedCount === 1 ? stored : null;
  }

  /**
   * Read, apply a pure rule, replaceIfUnchanged; on a lost race re-read and apply the rule again to what won.
   * `change` returns the new document, or null to leave it as it is (no write), and may throw a DomainError,
   * which ends the attempt. null when the document does not exist in this scope.
   */
  async mutate<R>(
    id: T['_id'],
    change: (current: WithId<T>) => { next: T | null; result: R },
  ): Promise<{ doc: WithId<T>; result: R } | null> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.findOne({ _id: id });
      if (!current) return null;
      const { next, result } = change(current);
      if (next === null) return { doc: current, result };
      const stored = await this.replaceIfUnchanged(current, next);
      if (stored) return { doc: stored, result };
      // Each lost race means another writer succeeded, so this ends; the bound only guards against a bug.
      if (attempt >= MAX_MUTATE_ATTEMPTS)
        throw new DependencyUnavailableError(`document ${String(id)}: ${attempt} concurrent writes in a row`);
    }
  }
}

const MAX_MUTATE_ATTEMPTS = 100;

/**
 * The revision replaceIfUnchanged() stores when it writes over `current`; a change that publishes its own
 * revision (an event written with it) reads it here, so the event and the stored document agree.
 */
export function nextRevision(currentRevision: number | undefined): number {
  return (currentRevision ?? 0) + 1;
}

export function scoped<T extends ScopedDocument>(collection: Collection<T>, scope: Scope): ScopedCollection<T> {
  return new ScopedCollection(collection, scope);
}
