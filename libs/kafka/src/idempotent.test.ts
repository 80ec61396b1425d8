import { MongoServerError, type Db } from '@checkout/mongo';
import { describe, expect, it } from 'vitest';
import { idempotentOnEventId } from './idempotent';

// The processed-event marker is a unique insert on the event id: when DocumentDB answers it with PostgreSQL's
// deadlock_detected (two replicas marking one redelivered event at once; docs/engines.md), it is tried again
// (libs/mongo write-conflicts.ts) instead of failing the message. A stand-in collection injects the error.

describe('idempotentOnEventId when the engine reports a deadlock on the marker', () => {
  function processedCollection(answers: Array<'deadlock' | 'duplicate' | 'ok'>) {
    const inserts: unknown[] = [];
    const collection = {
      findOne: async () => null,
      insertOne: async (doc: unknown) => {
        inserts.push(doc);
        const answer = answers.shift() ?? 'ok';
        if (answer === 'deadlock') throw new MongoServerError({ message: 'deadlock detected', code: 16908292 });
        if (answer === 'duplicate') throw new MongoServerError({ message: 'E11000 duplicate key', code: 11000 });
        return { acknowledged: true };
      },
    };
    return { db: { collection: () => collection } as unknown as Db, inserts };
  }

  it('When the marker deadlocks and then goes through, then the event counts as processed', async () => {
    const { db, inserts } = processedCollection(['deadlock', 'ok']);
    const handled: string[] = [];
    const handle = idempotentOnEventId<{ id: string }>(
      db,
      'test',
      (m) => m.id,
      async (m) => void handled.push(m.id),
    );
    expect(await handle({ id: 'evt_1' })).toBe('processed');
    expect(handled).toEqual(['evt_1']);
    expect(inserts).toHaveLength(2);
  });

  it('When the marker deadlocks and then meets the other replica’s marker, then the event is a duplicate', async () => {
    const { db } = processedCollection(['deadlock', 'duplicate']);
    const handle = idempotentOnEventId<{ id: string }>(
      db,
      'test',
      (m) => m.id,
      async () => {},
    );
    expect(await handle({ id: 'evt_2' })).toBe('duplicate');
  });
});
