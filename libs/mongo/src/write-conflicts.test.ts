import { DependencyUnavailableError } from '@checkout/errors';
import { MongoBulkWriteError, MongoServerError, type Collection, type Db, type WriteError } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Leases } from './lease';
import { scoped, type ScopedDocument } from './scope';
import {
  insertManyOnce,
  isTransientWriteConflict,
  retryTransientWriteConflicts,
  WRITE_CONFLICT_ATTEMPTS,
  writeConflictBackoffMs,
} from './write-conflicts';

// DocumentDB (FerretDB 2.5) answers some of several concurrent inserts of one unique key with PostgreSQL's
// deadlock_detected instead of a duplicate key (docs/engines.md). Every unique insert tries again, and then meets
// the duplicate key as on MongoDB, so the merchant gets the answer of D37 (409, or the stored document), never a
// 5xx. The errors below are injected into a stand-in collection; the real race on the real engine is
// libs/mongo/test/insert-once.test.ts and testkit/engines/test/mongo-semantics.test.ts.

/**
 * FerretDB 2.5's answer to the loser of a deadlock, as the driver raises it from the insert's write error
 * (recorded 2026-11-27: errorResponse {index: 0, code: 16908292, errmsg: 'deadlock detected'}).
 */
const deadlock = () => new MongoServerError({ index: 0, code: 16908292, errmsg: 'deadlock detected' });
const duplicateKey = () =>
  new MongoServerError({
    message: 'E11000 duplicate key error collection: db.customers index: org_mode_email',
    code: 11000,
  });

interface Customer extends ScopedDocument {
  _id: string;
  email: string;
}

/**
 * A collection whose inserts answer from a script, one entry per call; reads answer from `reads` in turn (the last
 * one stays).
 */
function scripted(answers: Array<Error | 'ok'>, reads: Array<Customer | null> = [null]) {
  const inserts: unknown[] = [];
  const collection = {
    insertOne: async (doc: unknown) => {
      inserts.push(doc);
      const answer = answers.shift() ?? 'ok';
      if (answer !== 'ok') throw answer;
      return { acknowledged: true, insertedId: (doc as { _id: unknown })._id };
    },
    findOne: async () => (reads.length > 1 ? reads.shift() : reads[0]) ?? null,
  };
  return { collection: collection as unknown as Collection<Customer>, inserts };
}

// The pauses between tries run on fake time: `settle` runs every timer until the write has its answer.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});
async function settle<T>(promise: Promise<T>): Promise<unknown> {
  const outcome = promise.then(
    (value) => value,
    (error: unknown) => error,
  );
  await vi.runAllTimersAsync();
  return outcome;
}

const scope = { organizationId: 'org_1', mode: 'test' } as const;
const holder: Customer = { _id: 'cus_winner', email: 'ada@example.com', ...scope };

describe('isTransientWriteConflict', () => {
  it("recognises PostgreSQL's deadlock_detected and serialization_failure as DocumentDB passes them on", () => {
    expect(isTransientWriteConflict(deadlock())).toBe(true);
    expect(isTransientWriteConflict(new MongoServerError({ message: 'could not serialize', code: 16777220 }))).toBe(
      true,
    );
  });

  it('leaves every other error alone: a duplicate key, a server error, a network failure, a non-error', () => {
    expect(isTransientWriteConflict(duplicateKey())).toBe(false);
    expect(isTransientWriteConflict(new MongoServerError({ message: 'WriteConflict', code: 112 }))).toBe(false);
    expect(isTransientWriteConflict(new Error('connection closed'))).toBe(false);
    expect(isTransientWriteConflict({ code: '40P01' })).toBe(false);
    expect(isTransientWriteConflict(null)).toBe(false);
  });
});

describe('ScopedCollection.insertOnce when the engine reports a deadlock', () => {
  it('When the insert loses a deadlock and the winner holds the key by then, then the holder comes back, with no second insert', async () => {
    const { collection, inserts } = scripted([deadlock()], [holder]);
    const result = await settle(
      scoped(collection, scope).insertOnce(
        { _id: 'cus_loser', email: 'ada@example.com' },
        { email: 'ada@example.com' },
      ),
    );
    expect(result).toEqual({ created: false, doc: holder });
    expect(inserts).toHaveLength(1);
  });

  it('When the insert loses deadlocks before the winner commits, then it tries again and meets the duplicate key', async () => {
    const { collection, inserts } = scripted([deadlock(), deadlock(), duplicateKey()], [null, null, holder]);
    const result = await settle(
      scoped(collection, scope).insertOnce(
        { _id: 'cus_loser', email: 'ada@example.com' },
        { email: 'ada@example.com' },
      ),
    );
    expect(result).toEqual({ created: false, doc: holder });
    expect(inserts).toHaveLength(3);
  });

  it('When the insert loses a deadlock and the key is then free, then the document is stored', async () => {
    const { collection, inserts } = scripted([deadlock(), 'ok']);
    const result = await settle(scoped(collection, scope).insertOnce({ _id: 'cus_1', email: 'b@example.com' }));
    expect(result).toEqual({ created: true, doc: { _id: 'cus_1', email: 'b@example.com', ...scope } });
    expect(inserts).toEqual([
      { _id: 'cus_1', email: 'b@example.com', ...scope },
      { _id: 'cus_1', email: 'b@example.com', ...scope },
    ]);
  });

  it('When every try deadlocks, then it stops after the bound with the database unavailable (503), not an internal error', async () => {
    const { collection, inserts } = scripted(Array.from({ length: 20 }, deadlock));
    const error = await settle(scoped(collection, scope).insertOnce({ _id: 'cus_2', email: 'c@example.com' }));
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).cause).toBeInstanceOf(MongoServerError);
    expect(inserts).toHaveLength(WRITE_CONFLICT_ATTEMPTS);
  });

  it('When the insert fails for another reason, then that error reaches the caller at once', async () => {
    const refused = new MongoServerError({ message: 'document too large', code: 10334 });
    const { collection, inserts } = scripted([refused]);
    expect(await settle(scoped(collection, scope).insertOne({ _id: 'cus_3', email: 'd@example.com' }))).toBe(refused);
    expect(inserts).toHaveLength(1);
  });
});

describe('retryTransientWriteConflicts', () => {
  it('pauses before each new try for a random time under a bound that doubles up to a second (the losers spread out)', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => writeConflictBackoffMs(attempt, () => 0.999))).toEqual([
      49, 99, 199, 399, 799, 999, 999,
    ]);
    expect(writeConflictBackoffMs(3, () => 0)).toBe(0);
  });

  it('returns what the write returns once it goes through', async () => {
    const answers: Array<Error | number> = [deadlock(), 42];
    const calls: number[] = [];
    const result = await settle(
      retryTransientWriteConflicts(async () => {
        calls.push(calls.length);
        const answer = answers.shift();
        if (answer instanceof Error) throw answer;
        return answer;
      }),
    );
    expect(result).toBe(42);
    expect(calls).toHaveLength(2);
  });
});

describe('insertManyOnce when the engine reports a deadlock for some documents', () => {
  interface Event {
    _id: string;
    n: number;
  }
  const docs: Event[] = [0, 1, 2, 3].map((n) => ({ _id: `evt_${n}`, n }));

  function bulkCollection(answers: Array<Array<{ index: number; code: number }>>) {
    const calls: Event[][] = [];
    const collection = {
      insertMany: async (batch: Event[]) => {
        calls.push([...batch]);
        const errors = answers.shift() ?? [];
        if (errors.length === 0) return { acknowledged: true, insertedCount: batch.length };
        // The driver's WriteError (not exported) exposes index, code and errmsg; its plain shape stands in.
        const writeErrors = errors.map((e) => ({ ...e, errmsg: `code ${e.code}` })) as unknown as WriteError[];
        throw new MongoBulkWriteError(
          { message: 'write errors', code: errors[0]?.code ?? 0, writeErrors },
          {} as never,
        );
      },
    };
    return { collection: collection as unknown as Collection<Event>, calls };
  }

  it('When one document deadlocks and another is a duplicate, then only the deadlocked one is inserted again', async () => {
    const { collection, calls } = bulkCollection([
      [
        { index: 1, code: 16908292 },
        { index: 2, code: 11000 },
      ],
      [{ index: 0, code: 11000 }], // the retry of evt_1 meets the winner's row
    ]);
    const duplicates = await settle(insertManyOnce(collection, docs));
    expect(duplicates).toEqual(new Set(['evt_2', 'evt_1']));
    expect(calls.map((batch) => batch.map((d) => d._id))).toEqual([['evt_0', 'evt_1', 'evt_2', 'evt_3'], ['evt_1']]);
  });

  it('When a deadlocked document goes through on its retry, then it is not reported as a duplicate', async () => {
    const { collection, calls } = bulkCollection([[{ index: 3, code: 16908292 }], []]);
    expect(await settle(insertManyOnce(collection, docs))).toEqual(new Set());
    expect(calls[1]).toEqual([docs[3]]);
  });

  it('When the deadlocks do not stop, then it stops after the bound with the database unavailable', async () => {
    const { collection, calls } = bulkCollection(Array.from({ length: 20 }, () => [{ index: 0, code: 16908292 }]));
    expect(await settle(insertManyOnce(collection, docs))).toBeInstanceOf(DependencyUnavailableError);
    expect(calls).toHaveLength(WRITE_CONFLICT_ATTEMPTS);
  });

  it('When a write error is neither, then the bulk error is thrown', async () => {
    const { collection } = bulkCollection([[{ index: 0, code: 121 }]]);
    expect(await settle(insertManyOnce(collection, docs))).toBeInstanceOf(MongoBulkWriteError);
  });
});

describe('Leases when the engine reports a deadlock', () => {
  it('When taking a lease loses a deadlock to another replica, then the retry finds the lease held: not taken, no error', async () => {
    const { collection, inserts } = scripted([deadlock(), duplicateKey(), duplicateKey()]);
    const db = { collection: () => collection } as unknown as Db;
    expect(await settle(new Leases(db).tryAcquire('recovery-sweep'))).toBeNull();
    // deadlock then duplicate; then, the holder not being expired (findOne: none), one more try: duplicate.
    expect(inserts).toHaveLength(3);
  });
});
