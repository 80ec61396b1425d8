// npm run bench -- engine: the MongoDB-compatible engines this project can run without Docker, measured side
// by side (docs/engines.md records the choice). Each candidate runs alone on a fresh data directory.
// With MONGODB_URL: that engine alone (FerretDB 2 on DocumentDB, a MongoDB, ...), named by what it says it is, in a
// database of its own that is dropped afterwards; its restart and provisioning are not the bench's to measure.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection } from '@checkout/mongo';
import {
  describeMongo,
  FERRETDB_VERSION,
  MONGO_JAVA_SERVER_VERSION,
  provisionFerretDb,
  provisionMongoJavaServer,
  startLocalFerretDb,
  startLocalMongoJavaServer,
} from '@checkout/engines';
import { runLoad } from './load';

interface Started {
  url: string;
  stop: () => Promise<void>;
  /** Absent for an engine the bench did not start (MONGODB_URL): it is not restarted. */
  start?: () => Promise<void>;
}

interface Candidate {
  name: string;
  /** Builds the engine into `cacheRoot` (a fresh one for a cold figure); returns what start needs. */
  provision(): Promise<string>;
  start(build: string, runDir: string): Promise<Started>;
  /** Cold provisioning is measured unless it takes minutes (then only with --cold-all); null: not provisioned here. */
  coldByDefault: boolean | null;
}

/** The engine MONGODB_URL names, as a candidate: nothing to provision, and never stopped or restarted here. */
async function givenEngine(url: string): Promise<Candidate> {
  const started: Started = { url, stop: async () => {} };
  return {
    name: `${await describeMongo(url)} (MONGODB_URL)`,
    provision: async () => url,
    start: async () => started,
    coldByDefault: null,
  };
}

const CANDIDATES: Candidate[] = [
  {
    name: `mongo-java-server ${MONGO_JAVA_SERVER_VERSION} (H2 file)`,
    provision: () => provisionMongoJavaServer(),
    start: (dir, runDir) => startLocalMongoJavaServer({ dir, runDir, deadlineMs: 60_000, backend: 'h2' }),
    coldByDefault: true,
  },
  {
    name: `mongo-java-server ${MONGO_JAVA_SERVER_VERSION} (memory)`,
    provision: () => provisionMongoJavaServer(),
    start: (dir, runDir) => startLocalMongoJavaServer({ dir, runDir, deadlineMs: 60_000, backend: 'memory' }),
    coldByDefault: true,
  },
  {
    name: `FerretDB ${FERRETDB_VERSION} (SQLite)`,
    provision: () => provisionFerretDb(),
    start: (bin, runDir) => startLocalFerretDb({ bin, runDir, deadlineMs: 60_000 }),
    coldByDefault: false,
  },
];

interface Row {
  engine: string;
  insert: number;
  findSmall: number;
  findLarge: number;
  findByKey: number;
  findScoped: number;
  update: number;
  conditionalUpdate: number;
  winners: number;
  incs: number;
  persists: string;
  provision: string;
}

interface Doc {
  _id: string;
  key: string;
  tenant: string;
  status: string;
  n: number;
  pad: string;
}

export async function runEngineBench(options: {
  concurrency: number;
  seconds: number;
  large: number;
  coldAll: boolean;
  only?: string;
  /** MONGODB_URL: measure that engine instead of the local candidates. */
  mongoUrl?: string;
}): Promise<void> {
  const rows: Row[] = [];
  const candidates = options.mongoUrl ? [await givenEngine(options.mongoUrl)] : CANDIDATES;
  for (const candidate of candidates) {
    if (options.only && !candidate.name.toLowerCase().includes(options.only.toLowerCase())) continue;
    process.stderr.write(`[bench] ${candidate.name}\n`);
    rows.push(await measure(candidate, options));
  }
  console.log(
    `\nMongoDB-compatible engines, c=${options.concurrency}, ${options.seconds} s per figure (ops/s; find by _id at 1 k and ${options.large / 1000} k documents)`,
  );
  console.log(formatRows(rows));
  console.log(
    'atomicity: 20 concurrent findOneAndUpdate({_id, status:"pending"}) → winners (MongoDB: 1); 20 concurrent $inc → final count (MongoDB: 20)',
  );
  console.log(
    "provisioning: cold = into an empty engines cache (Maven's and Go's own download caches as they are on this machine)",
  );
}

async function measure(
  candidate: Candidate,
  options: { concurrency: number; seconds: number; large: number; coldAll: boolean },
): Promise<Row> {
  const provision =
    candidate.coldByDefault === null ? '—' : await provisionTime(candidate, options.coldAll || candidate.coldByDefault);
  const build = await candidate.provision();
  const runDir = await mkdtemp(join(tmpdir(), `checkout-engines-${process.pid}-bench-`));
  const engine = await candidate.start(build, runDir);
  const client = new MongoClient(engine.url, { maxPoolSize: options.concurrency * 2, retryWrites: false });
  // A name of its own: on a given engine, nothing of anyone else's is touched, and it is dropped at the end.
  const dbName = `engine_bench_${process.pid}_${Date.now().toString(36)}`;
  try {
    await client.connect();
    const docs = client.db(dbName).collection<Doc>('docs');
    await docs.createIndex({ key: 1 }, { unique: true });
    const throughputs = await measureThroughputs(docs, options);
    const { winners, incs } = await atomicity(client.db(dbName).collection('atomic'));
    const persists = engine.start ? await survivesRestart({ ...engine, start: engine.start }, client, dbName) : '—';
    return { engine: candidate.name, ...throughputs, winners, incs, persists, provision };
  } finally {
    // A local candidate's data goes with its run directory; a given engine keeps nothing of the bench.
    if (!engine.start)
      await client
        .db(dbName)
        .dropDatabase()
        .catch(() => {});
    await client.close().catch(() => {});
    await engine.stop();
    await rm(runDir, { recursive: true, force: true });
  }
}

const PAD = 'x'.repeat(400);

/** Documents `d{from}` to `d{to - 1}`, in batches of 1,000. */
async function seedDocs(docs: Collection<Doc>, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 1000) {
    await docs.insertMany(
      Array.from({ length: Math.min(1000, to - i) }, (_, j) => ({
        _id: `d${i + j}`,
        key: `k${i + j}`,
        tenant: 't1',
        status: 'pending',
        n: 0,
        pad: PAD,
      })),
    );
  }
}

/** The table's ops/s: find@1k and insert before the collection is seeded up to `large` documents, the rest after. */
async function measureThroughputs(
  docs: Collection<Doc>,
  options: { concurrency: number; seconds: number; large: number },
): Promise<Omit<Row, 'engine' | 'winners' | 'incs' | 'persists' | 'provision'>> {
  const load = { concurrency: options.concurrency, durationMs: options.seconds * 1000, warmupMs: 500 };
  await seedDocs(docs, 0, 1000);
  const pick = (size: number) => Math.floor(Math.random() * size);
  const findSmall = await runLoad('find', load, async () => (await docs.findOne({ _id: `d${pick(1000)}` })) !== null);
  let inserted = 0;
  const insert = await runLoad('insert', load, async () => {
    inserted += 1;
    await docs.insertOne({
      _id: `i${inserted}-${Math.random()}`,
      key: `ik${inserted}-${Math.random()}`,
      tenant: 't1',
      status: 'pending',
      n: 0,
      pad: PAD,
    });
    return true;
  });
  await seedDocs(docs, 1000, options.large);
  const findLarge = await runLoad(
    'find',
    load,
    async () => (await docs.findOne({ _id: `d${pick(options.large)}` })) !== null,
  );
  const findByKey = await runLoad(
    'find by key',
    load,
    async () => (await docs.findOne({ key: `k${pick(options.large)}` })) !== null,
  );
  // A tenant-scoped read and a conditional write name _id and more: MongoDB answers both through the _id index.
  const findScoped = await runLoad(
    'find scoped',
    load,
    async () => (await docs.findOne({ _id: `d${pick(options.large)}`, tenant: 't1' })) !== null,
  );
  const conditionalUpdate = await runLoad(
    'conditional update',
    load,
    async () =>
      (await docs.updateOne({ _id: `d${pick(options.large)}`, tenant: 't1' }, { $inc: { n: 1 } })).matchedCount === 1,
  );
  const update = await runLoad(
    'update',
    load,
    async () =>
      (await docs.updateOne({ _id: `d${pick(options.large)}` }, { $set: { status: 'seen' } })).matchedCount === 1,
  );
  return {
    insert: insert.throughput,
    findSmall: findSmall.throughput,
    findLarge: findLarge.throughput,
    findByKey: findByKey.throughput,
    findScoped: findScoped.throughput,
    conditionalUpdate: conditionalUpdate.throughput,
    update: update.throughput,
  };
}

/** Writes a document, stops and starts the engine, and reads it again: 'yes' when it is still there. */
async function survivesRestart(engine: Required<Started>, client: MongoClient, dbName: string): Promise<'yes' | 'no'> {
  await client
    .db(dbName)
    .collection('persist')
    .insertOne({ _id: 'p' as never, at: new Date() });
  await client.close();
  await engine.stop();
  await engine.start();
  const again = new MongoClient(engine.url, { serverSelectionTimeoutMS: 10_000 });
  try {
    await again.connect();
    return (await again
      .db(dbName)
      .collection('persist')
      .findOne({ _id: 'p' as never }))
      ? 'yes'
      : 'no';
  } finally {
    await again.close();
  }
}

async function atomicity(collection: Collection): Promise<{ winners: number; incs: number }> {
  await collection.insertOne({ _id: 'a' as never, status: 'pending', n: 0 });
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      collection.findOneAndUpdate({ _id: 'a' as never, status: 'pending' }, { $set: { status: 'done', by: i } }),
    ),
  );
  await Promise.all(Array.from({ length: 20 }, () => collection.updateOne({ _id: 'a' as never }, { $inc: { n: 1 } })));
  const after = await collection.findOne({ _id: 'a' as never });
  return { winners: results.filter((r) => r !== null).length, incs: Number(after?.n) };
}

/** Provisioning into an empty cache root (cold) when asked, else the time of a cache hit. */
async function provisionTime(candidate: Candidate, cold: boolean): Promise<string> {
  if (!cold) {
    const started = Date.now();
    await candidate.provision();
    return `cached ${((Date.now() - started) / 1000).toFixed(1)} s (--cold-all for cold)`;
  }
  const previous = process.env.XDG_CACHE_HOME;
  const root = await mkdtemp(join(tmpdir(), 'checkout-engines-cold-'));
  process.env.XDG_CACHE_HOME = root;
  try {
    const started = Date.now();
    await candidate.provision();
    return `cold ${((Date.now() - started) / 1000).toFixed(1)} s`;
  } finally {
    if (previous === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = previous;
    await rm(root, { recursive: true, force: true });
  }
}

function formatRows(rows: Row[]): string {
  const header = [
    'engine',
    'insert',
    'find@1k',
    'find@large',
    'find by unique key',
    'find {_id, tenant}',
    'update',
    'update {_id, tenant}',
    'winners of 20',
    '$inc of 20',
    'survives restart',
    'provisioning',
  ];
  const lines = rows.map((r) => [
    r.engine,
    r.insert.toFixed(0),
    r.findSmall.toFixed(0),
    r.findLarge.toFixed(0),
    r.findByKey.toFixed(0),
    r.findScoped.toFixed(0),
    r.update.toFixed(0),
    r.conditionalUpdate.toFixed(0),
    String(r.winners),
    String(r.incs),
    r.persists,
    r.provision,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}
