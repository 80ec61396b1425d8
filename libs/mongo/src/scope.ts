import type { Collection, Document, Filter, FindOptions, OptionalUnlessRequiredId, WithId } from 'mongodb';

export type Mode = 'test' | 'live';

export interface Scope {
  organizationId: string;
  mode: Mode;
}

/** The fields every tenant-owned document carries. */
export interface ScopedDocument extends Document {
  organizationId: string;
  mode: Mode;
}

/**
 * A collection that can only be read and written inside one organization and mode: the scope is merged into
 * every filter and every insert here, so no store function can forget it (style.md §3).
 */
export class ScopedCollection<T extends ScopedDocument> {
  constructor(
    private readonly collection: Collection<T>,
    readonly scope: Scope,
  ) {}

  filter(filter: Filter<T> = {}): Filter<T> {
    return { ...filter, organizationId: this.scope.organizationId, mode: this.scope.mode } as Filter<T>;
  }

  findOne(filter: Filter<T>, options?: FindOptions): Promise<WithId<T> | null> {
    return this.collection.findOne(this.filter(filter), options);
  }

  find(filter: Filter<T>, options?: FindOptions) {
    return this.collection.find(this.filter(filter), options);
  }

  countDocuments(filter: Filter<T>): Promise<number> {
    return this.collection.countDocuments(this.filter(filter));
  }

  async insertOne(doc: Omit<T, 'organizationId' | 'mode'>): Promise<void> {
    await this.collection.insertOne({ ...doc, organizationId: this.scope.organizationId, mode: this.scope.mode } as OptionalUnlessRequiredId<T>);
  }

  /** Replaces a document that the caller holds the lease of; the scope is part of the filter. */
  async replaceOne(id: T['_id'], doc: T): Promise<boolean> {
    const result = await this.collection.replaceOne(this.filter({ _id: id } as Filter<T>), { ...doc, organizationId: this.scope.organizationId, mode: this.scope.mode });
    return result.matchedCount === 1;
  }
}

export function scoped<T extends ScopedDocument>(collection: Collection<T>, scope: Scope): ScopedCollection<T> {
  return new ScopedCollection(collection, scope);
}
