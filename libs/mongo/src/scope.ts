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

  /**
   * A lookup by _id alone is sent as {_id} and the tenant is checked here: FerretDB 1.24 (SQLite) pushes a
   * filter down to the database only when it is exactly {_id: value} (backends/sqlite/collection.go),
   * and scans the whole collection otherwise.
   */
  async findOne(filter: Filter<T>, options?: FindOptions): Promise<WithId<T> | null> {
    const id = idOnly(filter);
    if (id !== undefined) {
      const doc: WithId<T> | null = await this.collection.findOne({ _id: id } as Filter<T>, options);
      return doc !== null && this.owns(doc as unknown as ScopedDocument) ? doc : null;
    }
    return this.collection.findOne(this.filter(filter), options);
  }

  private owns(doc: ScopedDocument): boolean {
    return doc.organizationId === this.scope.organizationId && doc.mode === this.scope.mode;
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

  /**
   * Replaces a document the caller read through this scope and holds the lease of. The filter is {_id}
   * alone for the same pushdown reason as findOne; the written document always carries this scope.
   */
  async replaceOne(id: T['_id'], doc: T): Promise<boolean> {
    const result = await this.collection.replaceOne({ _id: id } as Filter<T>, { ...doc, organizationId: this.scope.organizationId, mode: this.scope.mode });
    return result.matchedCount === 1;
  }
}

function idOnly(filter: object): string | undefined {
  const keys = Object.keys(filter);
  const id = (filter as { _id?: unknown })._id;
  return keys.length === 1 && typeof id === 'string' ? id : undefined;
}

export function scoped<T extends ScopedDocument>(collection: Collection<T>, scope: Scope): ScopedCollection<T> {
  return new ScopedCollection(collection, scope);
}
