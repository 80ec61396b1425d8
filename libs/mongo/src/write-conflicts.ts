import { DependencyUnavailableError } from '@checkout/errors';
import { MongoBulkWriteError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';
import { isDuplicateKeyError } from './errors';

/**
 * A transient write conflict: the engine gave up a write because it collided with a concurrent one, wrote
 * nothing, and says that trying again is the answer. MongoDB resolves its own write conflicts inside the server,
 * so it never answers with one outside a transaction (the code uses none); DocumentDB (FerretDB 2, and Azure
 * Cosmos DB for MongoDB vCore, which builds on it) runs every write as a PostgreSQL statement and passes
 * PostgreSQL's "try again" errors through, with the SQLSTATE packed into the error code as PostgreSQL packs it
 * (MAKE_SQLSTATE: six bits per character, the first character lowest):
 * - 40P01 `deadlock_detected` → 16908292. DocumentDB enforces a unique index other than _id with an exclusion
 *   constraint, and concurrent inserts of one key that each find the other's uncommitted row wait on each other;
 *   PostgreSQL aborts one of them (after `deadlock_timeout`, 1 s by default). Tried again, the insert meets the
 *   winner's committed row and is refused as a duplicate key (11000), as MongoDB would have answered at once.
 * - 40001 `serialization_failure` → 16777220, the other error PostgreSQL documents as "retry the transaction".
 * docs/engines.md, "FerretDB 2.5 on DocumentDB".
 */
export const TRANSIENT_WRITE_CONFLICT_CODES: ReadonlySet<number> = new Set([16908292, 16777220]);

export function isTransientWriteConflict(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'number' && TRANSIENT_WRITE_CONFLICT_CODES.has(code);
}

/**
 * Tries a write this many times in all while the engine answers with a transient write conflict. Each conflict
 * has a winner that commits, so the next try meets its row; more than one more try is needed only when several
 * losers deadlock again among themselves. The bound only stops a write that never gets through.
 */
export const WRITE_CONFLICT_ATTEMPTS = 8;
/**
 * Before try n + 1, a pause drawn from [0, min(BACKOFF_MS × 2^(n-1), MAX_BACKOFF_MS)) ms: the losers of one
 * conflict would otherwise try again in step, before the winner has committed, and deadlock again among
 * themselves. At most 3.55 s of pauses in all.
 */
const BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1_000;

/** The pause before the try after `attempt` (full jitter); `random` in [0, 1). */
export function writeConflictBackoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS));
}

/**
 * Runs `write`, and runs it again when the engine refused it as a transient write conflict (nothing was written).
 * Only for writes that are safe to repeat whole: an insert (the unique index arbitrates the repeat as it did the
 * first try) or a conditional update. Every unique insert goes through here: ScopedCollection.insertOne and
 * insertOnce, insertManyOnce, Leases, the migration records' upsert at start, the consumers' processed-event markers,
 * the gateway's organizations and keys.
 * After WRITE_CONFLICT_ATTEMPTS conflicts in a row, the database counts as unavailable (503 with Retry-After),
 * never as an internal error.
 *
 * `decided`, when given, is asked before each new try: the answer if another writer has settled the matter
 * meanwhile (insertOnce: the document that now holds the key). A loser that finds it does not insert again, so it
 * adds no uncommitted row for the other losers to wait on and deadlock with (on DocumentDB each deadlock costs
 * PostgreSQL's deadlock_timeout before it is reported).
 */
export async function retryTransientWriteConflicts<T>(
  write: () => Promise<T>,
  decided?: () => Promise<T | undefined>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!isTransientWriteConflict(err)) throw err;
      if (attempt >= WRITE_CONFLICT_ATTEMPTS) throw new DependencyUnavailableError('mongodb', err);
    }
    await sleep(writeConflictBackoffMs(attempt));
    const answer = await decided?.();
    if (answer !== undefined) return answer;
  }
}

/**
 * Inserts many documents in one command, unordered: each insert stands alone and the unique _id arbitrates, as
 * for insertOne. Returns the ids that were already there (duplicate key). The documents the engine refused as a
 * transient write conflict (written or not, each stands alone) are inserted again, only they, as
 * retryTransientWriteConflicts does for one; any other failure is thrown.
 */
export async function insertManyOnce<T extends Document & { _id: string }>(
  collection: Collection<T>,
  docs: readonly T[],
): Promise<Set<string>> {
  const duplicates = new Set<string>();
  let pending = docs;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const conflicted: T[] = [];
    try {
      await collection.insertMany(pending as unknown as Array<OptionalUnlessRequiredId<T>>, { ordered: false });
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const writeErrors = (Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors]) as Array<{
        index: number;
        code: number;
      }>;
      // A failure that is not a write error (the connection dropped) leaves nothing to tell which were stored.
      if (writeErrors.length === 0) throw err;
      for (const writeError of writeErrors) {
        const doc = pending[writeError.index];
        if (!doc) throw err;
        if (isDuplicateKeyError(writeError)) duplicates.add(doc._id);
        else if (isTransientWriteConflict(writeError)) conflicted.push(doc);
        else throw err;
      }
      if (conflicted.length > 0 && attempt >= WRITE_CONFLICT_ATTEMPTS)
        throw new DependencyUnavailableError('mongodb', err);
    }
    pending = conflicted;
    if (pending.length > 0) await sleep(writeConflictBackoffMs(attempt));
  }
  return duplicates;
}

/** The global timer (not node:timers/promises), so that unit tests can run the pauses on fake time. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
