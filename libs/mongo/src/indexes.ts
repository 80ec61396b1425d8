import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';

export interface IndexDefinition {
  collection: string;
  name: string;
  key: IndexSpecification;
  unique?: boolean;
  /** The store function whose query this index serves (style.md §4). */
  servedBy: string;
}

/**
 * Creates the indexes a service declares, at start. Only plain and unique indexes: FerretDB 1.24 cannot run
 * partial, sparse or TTL indexes (architecture.md, Storage rules).
 */
export async function ensureIndexes(db: Db, definitions: readonly IndexDefinition[]): Promise<void> {
  for (const def of definitions) {
    const options: CreateIndexesOptions = { name: def.name };
    if (def.unique) options.unique = true;
    await db.collection(def.collection).createIndex(def.key, options);
  }
}
