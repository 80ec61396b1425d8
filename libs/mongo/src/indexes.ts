import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';

export interface IndexDefinition {
  collection: string;
  name: string;
  key: IndexSpecification;
  unique?: boolean;
  /** The store function whose query this index serves. */
  servedBy: string;
}

/**
 * The indexes of one collection, by name, each with the query it serves: how a service's indexes.ts declares them,
 * collection by collection, in the order they are created.
 */
export function indexesOn(
  collection: string,
  indexes: Record<string, Omit<IndexDefinition, 'collection' | 'name'>>,
): IndexDefinition[] {
  return Object.entries(indexes).map(([name, index]) => ({ collection, name, ...index }));
}

/**
 * Creates the indexes a service declares, at start. Only plain and unique indexes: the local engine
 * (mongo-java-server) ignores partial filters and never applies TTL (docs/engines.md, known gaps).
 */
export async function ensureIndexes(db: Db, definitions: readonly IndexDefinition[]): Promise<void> {
  for (const def of definitions) {
    const options: CreateIndexesOptions = { name: def.name };
    if (def.unique) options.unique = true;
    await db.collection(def.collection).createIndex(def.key, options);
  }
}
