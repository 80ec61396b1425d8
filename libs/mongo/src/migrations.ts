import type { Collection, Db, Filter, UpdateFilter } from 'mongodb';
import { LEASES_COLLECTION, Leases } from './lease';
import { PeriodicTask } from './periodic-task';
import { retryTransientWriteConflicts } from './write-conflicts';

/** Every service's documents have string ids (`ord_…`, `cs_…`): a step's cursor is the last one it migrated. */
export interface MigratedDocument {
  _id: string;
  [field: string]: unknown;
}

/**
 * One step of a rolling change to stored documents (docs/engineering.md, "Migrations that roll"): the release
 * that registers it already reads and writes both shapes (expand); this step rewrites the documents still in
 * the old shape while old and new replicas serve (migrate); a later release drops the old shape's handling once
 * the step is recorded done everywhere (contract).
 */
export interface Migration {
  /** `<service>.<nnnn>-<what>`: the record's _id in the service's `migrations` collection; never reused. */
  id: string;
  description: string;
  collection: string;
  /**
   * The documents still to migrate. The step is done when none match, so the update must make a document stop
   * matching (that is what makes a step idempotent: running it twice changes nothing the second time).
   */
  pending: Filter<MigratedDocument>;
  /**
   * The change of one document, applied with `pending` and its _id in the filter: a request that wrote the
   * document meanwhile (to either shape) wins or loses as against any other writer, and nothing is done twice.
   */
  update: UpdateFilter<MigratedDocument>;
  /**
   * Work done for each pending document before its update, from the whole document: another collection filled
   * from it (orders' balance transactions, D52). Idempotent: a crash between it and the update does it again.
   */
  prepare?: (doc: MigratedDocument) => Promise<void>;
  /**
   * The collection's shard key fields besides _id (its store/indexes.ts declaration): read with each document and
   * named in its update, so that on a sharded cluster the update goes to one shard (the batch's read, a scan of
   * the old shape, goes to every shard).
   */
  shardKeyFields?: readonly string[];
}

export interface MigrationRecord {
  _id: string;
  description: string;
  state: 'running' | 'done';
  /** The last _id migrated in the current pass: a replica that takes over resumes after it. */
  cursor: string | null;
  /** Documents this step changed, over every pass and replica. */
  migrated: number;
  /** Passes over the collection; another starts when documents in the old shape appeared behind the cursor. */
  passes: number;
  startedAt: Date;
  updatedAt: Date;
  doneAt?: Date;
  /** The build that last worked on it (libs/config buildInfo). */
  by: string;
}

/** Where the runner reports its progress (pino's shape: the services pass their logger). */
export interface MigrationLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface MigrationRunnerOptions {
  db: Db;
  migrations: readonly Migration[];
  logger: MigrationLogger;
  /** The version recorded as `by`. */
  version: string;
  /** Documents per batch; the lease is renewed and the cursor saved after each. */
  batchSize?: number;
  /** Between batches, so that a large step never crowds out the requests it runs beside. */
  pauseMs?: number;
  /** A holder that dies blocks the step for at most this long. */
  leaseTtlMs?: number;
  /** The collection of records (default `migrations`) and of leases (default `leases`). */
  recordsCollection?: string;
  leasesCollection?: string;
}

export const MIGRATIONS_COLLECTION = 'migrations';

/**
 * Runs a service's migrations in the background, one replica at a time per step (a lease), in batches, resumable
 * after a crash or a stop (the cursor is stored), and records each step done in the database once a pass finds
 * nothing left. A step recorded done is checked once when a process starts: a rollback to a release that writes
 * the old shape may have written some since, and then the step runs again.
 */
export class MigrationRunner {
  private readonly records: Collection<MigrationRecord>;
  private readonly leases: Leases;
  private readonly batchSize: number;
  private readonly pauseMs: number;
  private readonly leaseTtlMs: number;
  /** Steps this process has seen done (checked, or finished itself): not looked at again until it restarts. */
  private readonly settled = new Set<string>();
  private stopping = false;

  constructor(private readonly options: MigrationRunnerOptions) {
    const ids = options.migrations.map((m) => m.id);
    if (new Set(ids).size !== ids.length) throw new Error(`migration ids must be unique: ${ids.join(', ')}`);
    this.records = options.db.collection<MigrationRecord>(options.recordsCollection ?? MIGRATIONS_COLLECTION);
    this.leases = new Leases(options.db, { collection: options.leasesCollection ?? LEASES_COLLECTION });
    this.batchSize = options.batchSize ?? 200;
    this.pauseMs = options.pauseMs ?? 20;
    this.leaseTtlMs = options.leaseTtlMs ?? 30_000;
  }

  /** Whether every step is settled in this process (done, and checked since it started). */
  get idle(): boolean {
    return this.options.migrations.every((m) => this.settled.has(m.id));
  }

  /**
   * Before the service serves (a few commands per step): a step recorded done with nothing left in the old shape,
   * or with no document in the old shape at all (a new database, or one already migrated), is settled (recorded
   * done if it was not); what is left is for the background rounds. So a service whose data needs nothing sends
   * nothing more, and one whose data does is not held back from serving by it.
   */
  async settle(): Promise<void> {
    for (const migration of this.options.migrations) {
      if (this.settled.has(migration.id)) continue;
      const collection = this.options.db.collection<MigratedDocument>(migration.collection);
      if (await collection.findOne(migration.pending, { projection: { _id: 1 } })) continue;
      const record = await this.records.findOne({ _id: migration.id });
      if (record?.state !== 'done') {
        const now = new Date();
        // Every replica settles at start, so replicas starting together upsert one record at once: a unique
        // insert, which DocumentDB may refuse as a transient write conflict (write-conflicts.ts).
        await retryTransientWriteConflicts(() =>
          this.records.updateOne(
            { _id: migration.id },
            {
              $set: {
                description: migration.description,
                state: 'done',
                cursor: null,
                doneAt: now,
                updatedAt: now,
                by: this.options.version,
              },
              $setOnInsert: { migrated: 0, passes: 1, startedAt: now },
            },
            { upsert: true },
          ),
        );
      }
      this.settled.add(migration.id);
    }
  }

  /** One round: each step not settled here, in order, if its lease is free. */
  async runOnce(): Promise<void> {
    for (const migration of this.options.migrations) {
      if (this.stopping) return;
      if (this.settled.has(migration.id)) continue;
      const record = await this.records.findOne({ _id: migration.id });
      const collection = this.options.db.collection<MigratedDocument>(migration.collection);
      if (record?.state === 'done' && !(await collection.findOne(migration.pending, { projection: { _id: 1 } }))) {
        this.settled.add(migration.id);
        continue;
      }
      const lease = await this.leases.tryAcquire(`migration:${migration.id}`, this.leaseTtlMs);
      if (!lease) return; // Another replica runs it; the next steps wait for it (order matters between steps).
      try {
        const finished = await this.run(migration, collection, lease);
        if (!finished) return;
      } finally {
        await lease.release().catch(() => {});
      }
    }
  }

  stop(): void {
    this.stopping = true;
  }

  /** Runs one step until it is done (true), or until this replica stops or loses its lease (false). */
  private async run(
    migration: Migration,
    collection: Collection<MigratedDocument>,
    lease: { renew(): Promise<boolean> },
  ): Promise<boolean> {
    const { logger, version } = this.options;
    const now = () => new Date();
    const found = await this.records.findOneAndUpdate(
      { _id: migration.id },
      {
        $set: { description: migration.description, updatedAt: now(), by: version, state: 'running' },
        $setOnInsert: { cursor: null, migrated: 0, passes: 1, startedAt: now() },
        $unset: { doneAt: '' },
      },
      { upsert: true, returnDocument: 'after' },
    );
    let cursor = found?.cursor ?? null;
    let migrated = found?.migrated ?? 0;
    let passes = found?.passes ?? 1;
    logger.info({ migration: migration.id, cursor, migrated, passes }, 'migration: running');
    for (;;) {
      if (this.stopping || !(await lease.renew())) return false;
      const batch = await collection
        .find(cursor === null ? migration.pending : { $and: [migration.pending, { _id: { $gt: cursor } }] }, {
          ...(migration.prepare === undefined && { projection: projectionOf(migration) }),
        })
        .sort({ _id: 1 })
        .limit(this.batchSize)
        .toArray();
      for (const doc of batch) {
        if (migration.prepare) await migration.prepare(doc);
        const result = await collection.updateOne(
          { $and: [routedFilter(migration, doc), migration.pending] },
          migration.update,
        );
        migrated += result.modifiedCount;
      }
      if (batch.length > 0) {
        cursor = String(batch[batch.length - 1]?._id);
        await this.records.updateOne({ _id: migration.id }, { $set: { cursor, migrated, updatedAt: now() } });
        if (this.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
        continue;
      }
      // The end of a pass: done if nothing is left, else another pass (documents written behind the cursor in
      // the old shape, by a replica of an older release that still runs).
      if (!(await collection.findOne(migration.pending, { projection: { _id: 1 } }))) {
        await this.records.updateOne(
          { _id: migration.id },
          { $set: { state: 'done', cursor: null, migrated, passes, doneAt: now(), updatedAt: now(), by: version } },
        );
        this.settled.add(migration.id);
        logger.info({ migration: migration.id, migrated, passes }, 'migration: done');
        return true;
      }
      cursor = null;
      passes += 1;
      await this.records.updateOne({ _id: migration.id }, { $set: { cursor, passes, updatedAt: now() } });
      // A pass that found only what an older writer keeps adding would spin: let the round end and come back.
      return false;
    }
  }
}

/**
 * The runner as a background part (ServiceRuntime.runInBackground): a round now, then every `intervalMs` until
 * every step is settled.
 */
export function migrationsInBackground(
  runner: MigrationRunner,
  intervalMs: number,
  logger: MigrationLogger,
): { start(): void; stop(): Promise<void> } {
  const task = new PeriodicTask(
    async () => {
      if (!runner.idle) await runner.runOnce();
    },
    intervalMs,
    (err) => logger.warn({ err }, 'migration round failed; will retry'),
  );
  return {
    start: () => task.start(),
    stop: async () => {
      runner.stop();
      await task.stop();
    },
  };
}

/** What a batch reads of each document when the step needs no more: its _id and the rest of its shard key. */
function projectionOf(migration: Migration): Record<string, 1> {
  return Object.fromEntries(['_id', ...(migration.shardKeyFields ?? [])].map((field) => [field, 1]));
}

/** One document by its _id and the rest of its shard key. */
function routedFilter(migration: Migration, doc: MigratedDocument): Filter<MigratedDocument> {
  const filter: Filter<MigratedDocument> = { _id: doc._id };
  for (const field of migration.shardKeyFields ?? []) if (field in doc) filter[field] = doc[field] as never;
  return filter;
}
