import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type {} from '@checkout/testing';
import { createLogger } from '@checkout/logger';
import {
  MIGRATIONS_COLLECTION,
  MigrationRunner,
  connectMongo,
  type Migration,
  type MigrationRecord,
  type MongoConnection,
} from '../src/index';
import { CommandLog } from '../src/testing';

// a migration that rolls. One step runs on one replica at a time (a lease), in batches, resumes where a
// stopped replica left it (the stored cursor), changes each document once however many replicas try, and is
// recorded done in the database; documents a writer of the old shape adds while it runs are taken by another pass,
// and a step recorded done runs again when a rollback wrote the old shape since.

interface Doc {
  _id: string;
  n: number;
  revision?: number;
}

const logger = createLogger('migrations-test', { level: 'silent' });
let mongo: MongoConnection;

beforeAll(async () => {
  mongo = await connectMongo(inject('engines').mongoUrl, `migrations_${randomBytes(4).toString('hex')}`);
});

afterAll(async () => {
  await mongo?.close();
});

const step = (collection: string): Migration => ({
  id: `test.0001-revision-in-${collection}`,
  description: 'every document carries a revision',
  collection,
  pending: { revision: { $exists: false } },
  update: { $set: { revision: 0 } },
});
const runner = (collection: string, options: { batchSize?: number; version?: string } = {}) =>
  new MigrationRunner({
    db: mongo.db,
    migrations: [step(collection)],
    logger,
    version: options.version ?? '1.1.0',
    batchSize: options.batchSize ?? 10,
    pauseMs: 0,
  });
const seed = async (collection: string, from: number, count: number) =>
  mongo.db
    .collection<Doc>(collection)
    .insertMany(
      Array.from({ length: count }, (_, i) => ({ _id: `doc_${String(from + i).padStart(5, '0')}`, n: from + i })),
    );
const record = (collection: string) =>
  mongo.db.collection<MigrationRecord>(MIGRATIONS_COLLECTION).findOne({ _id: step(collection).id });
const left = (collection: string) =>
  mongo.db.collection<Doc>(collection).countDocuments({ revision: { $exists: false } });

describe('MigrationRunner', () => {
  it('When two replicas run a step at once, then one holds it at a time, every document changes once, and it is recorded done', async () => {
    await seed('race', 0, 120);
    const a = runner('race');
    const b = runner('race');
    // Each round takes the step if its lease is free; a replica that finds it held comes back on its next round.
    for (let round = 0; round < 20 && !(a.idle && b.idle); round++) await Promise.all([a.runOnce(), b.runOnce()]);

    expect(await left('race')).toBe(0);
    const done = await record('race');
    expect(done).toMatchObject({ state: 'done', migrated: 120, passes: 1, cursor: null, by: '1.1.0' });
    expect(done?.doneAt).toBeInstanceOf(Date);
    // The lease was given back: nothing holds the step.
    expect(await mongo.db.collection('leases').countDocuments({ _id: `migration:${step('race').id}` } as object)).toBe(
      0,
    );
  });

  it('When a replica stops mid-step, then the next one resumes after the last batch it saved', async () => {
    await seed('resume', 0, 50);
    const first = runner('resume', { batchSize: 10 });
    const collection = mongo.db.collection<Doc>('resume');
    // Stop the first replica as soon as its first batch is saved (a SIGTERM during a rollout).
    const watching = (async () => {
      for (;;) {
        if ((await record('resume'))?.cursor) return first.stop();
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    await Promise.all([first.runOnce(), watching]);
    const saved = await record('resume');
    expect(saved?.state).toBe('running');
    expect(saved?.cursor).not.toBeNull();
    const migratedByFirst = saved?.migrated ?? 0;
    expect(migratedByFirst).toBeGreaterThan(0);
    expect(migratedByFirst).toBeLessThan(50);
    // What the first one did is not looked at again: the second starts after its cursor.
    await collection.updateMany({ _id: { $lte: saved?.cursor as string } }, { $set: { n: -1 } });

    const second = runner('resume', { batchSize: 10 });
    await second.runOnce();

    expect(await left('resume')).toBe(0);
    expect(await record('resume')).toMatchObject({ state: 'done', migrated: 50 });
    expect(await collection.countDocuments({ n: -1, revision: 0 })).toBe(migratedByFirst);
  });

  it('When an older writer keeps adding the old shape during a pass, then another pass takes those, and done means none is left', async () => {
    await seed('behind', 100, 30);
    const replica = runner('behind', { batchSize: 10 });
    await replica.runOnce();
    expect(await record('behind')).toMatchObject({ state: 'done', passes: 1 });
    // Written behind the cursor by a replica of the previous release, after the step was done here.
    await seed('behind', 0, 5);
    await replica.runOnce();
    // This process had settled the step: a process only checks a done step again when it starts.
    expect(await left('behind')).toBe(5);

    const restarted = runner('behind', { batchSize: 10, version: '1.1.1' });
    await restarted.runOnce();
    expect(await left('behind')).toBe(0);
    expect(await record('behind')).toMatchObject({ state: 'done', migrated: 35, by: '1.1.1' });
  });

  it('When a process starts on data with nothing in the old shape, then the step is recorded done before it serves, and nothing runs in the background', async () => {
    await mongo.db.collection<Doc>('settled').insertMany([{ _id: 'doc_1', n: 1, revision: 3 }]);
    const starting = runner('settled');
    await starting.settle();
    expect(starting.idle).toBe(true);
    expect(await record('settled')).toMatchObject({ state: 'done', migrated: 0 });
    // With documents in the old shape, settle() leaves the step to the background rounds.
    await seed('unsettled', 0, 2);
    const another = runner('unsettled');
    await another.settle();
    expect(another.idle).toBe(false);
    expect(await record('unsettled')).toBeNull();
  });

  it('When a document is written to the new shape meanwhile, then the step leaves it as its writer made it', async () => {
    await seed('written', 0, 3);
    await mongo.db.collection<Doc>('written').updateOne({ _id: 'doc_00001' }, { $set: { revision: 4 } });
    await runner('written').runOnce();
    const docs = await mongo.db.collection<Doc>('written').find().sort({ _id: 1 }).toArray();
    expect(docs.map((d) => d.revision)).toEqual([0, 4, 0]);
    expect(await record('written')).toMatchObject({ state: 'done', migrated: 2 });
  });
  it('When a step prepares each document (another collection filled from it), then it sees the whole document before its update, and a failed prepare leaves the document for the next round', async () => {
    await seed('prepared', 0, 12);
    const seen: Doc[] = [];
    let failOn: string | undefined = 'doc_00005';
    const prepared = (): MigrationRunner =>
      new MigrationRunner({
        db: mongo.db,
        migrations: [
          {
            ...step('prepared'),
            prepare: async (doc) => {
              if (doc._id === failOn) throw new Error('the other collection is down');
              seen.push(doc as unknown as Doc);
              await Promise.resolve();
            },
          },
        ],
        logger,
        version: '1.1.0',
        batchSize: 4,
        pauseMs: 0,
      });
    await expect(prepared().runOnce()).rejects.toThrow('the other collection is down');
    expect(await left('prepared')).toBe(7);
    expect(seen.map((d) => d.n)).toEqual([0, 1, 2, 3, 4]);
    failOn = undefined;
    const again = prepared();
    for (let round = 0; round < 5 && !again.idle; round++) await again.runOnce();
    expect(await left('prepared')).toBe(0);
    // Every document prepared once while still in the old shape (the whole of it: n too), its update after.
    expect(seen.map((d) => d.n)).toEqual([...Array(12).keys()]);
    expect(seen.every((d) => d.revision === undefined)).toBe(true);
  });

  it("When a step names its collection's shard key fields, then each document's update names them beside its _id", async () => {
    const collection = 'routed';
    await mongo.db
      .collection<Doc & { organizationId: string; mode: string }>(collection)
      .insertMany(
        Array.from({ length: 3 }, (_, i) => ({ _id: `doc_${i}`, organizationId: `org_${i}`, mode: 'test', n: i })),
      );
    const log = new CommandLog();
    const routed = await log.watch(() => connectMongo(inject('engines').mongoUrl, mongo.db.databaseName));
    try {
      const migration = new MigrationRunner({
        db: routed.db,
        migrations: [{ ...step(collection), shardKeyFields: ['organizationId', 'mode'] }],
        logger,
        version: '1.1.0',
        pauseMs: 0,
      });
      await migration.runOnce();
      const updates = log.commands
        .filter((c) => c.commandName === 'update' && c.command.update === collection)
        .flatMap((c) => (c.command.updates as Array<{ q: { $and: Array<Record<string, unknown>> } }>).map((u) => u.q));
      expect(updates.map((q) => q.$and[0])).toEqual([
        { _id: 'doc_0', organizationId: 'org_0', mode: 'test' },
        { _id: 'doc_1', organizationId: 'org_1', mode: 'test' },
        { _id: 'doc_2', organizationId: 'org_2', mode: 'test' },
      ]);
      expect(await mongo.db.collection(collection).countDocuments({ revision: 0 })).toBe(3);
    } finally {
      await routed.close();
    }
  });
});
