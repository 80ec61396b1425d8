import { MongoBulkWriteError, type Collection, type Document, type OptionalUnlessRequiredId } from '@checkout/mongo';

/**
 * Inserts many documents in one command, unordered: each insert stands alone and the unique _id arbitrates, as
 * for insertOne. Returns the ids that were already there (duplicate key); any other failure is thrown.
 */
export async function insertManyOnce<T extends Document & { _id: string }>(
  collection: Collection<T>,
  docs: readonly T[],
): Promise<Set<string>> {
  const duplicates = new Set<string>();
  if (docs.length === 0) return duplicates;
  try {
    await collection.insertMany(docs as unknown as Array<OptionalUnlessRequiredId<T>>, { ordered: false });
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const writeErrors = (Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors]) as Array<{
      index: number;
      code: number;
    }>;
    for (const writeError of writeErrors) {
      const doc = docs[writeError.index];
      if (writeError.code !== 11000 || !doc) throw err;
      duplicates.add(doc._id);
    }
    // A failure that is not a write error (the connection dropped) leaves nothing to tell which were stored.
    if (writeErrors.length === 0) throw err;
  }
  return duplicates;
}
