import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { dockerAvailable, startDockerKafka, startDockerMongo } from './docker';
import { ferretDbCached, provisionFerretDb, startLocalFerretDb } from './local-ferretdb';
import { kafkaCached, provisionKafka, startLocalKafka } from './local-kafka';
import { startLocalKafkaCluster, type LocalKafkaCluster } from './local-kafka-cluster';
import { mongoJavaServerCached, provisionMongoJavaServer, startLocalMongoJavaServer } from './local-mongo-java-server';
import { identifyMongoEngine, type MongoEngineIdentity } from './mongo-identity';
import { isAlive, run, which } from './process';

export {
  KAFKA_VERSION,
  kafkaArchiveFlags,
  provisionKafka,
  startLocalKafka,
  type LocalKafka,
  type ScramUser,
} from './local-kafka';
export {
  countUnderReplicated,
  startLocalKafkaCluster,
  type LocalKafkaCluster,
  type LocalKafkaNode,
} from './local-kafka-cluster';
export { FERRETDB_VERSION, pingMongo } from './local-ferretdb';
export {
  MONGO_JAVA_SERVER_VERSION,
  provisionMongoJavaServer,
  startLocalMongoJavaServer,
  type MongoJavaServerBackend,
} from './local-mongo-java-server';
export { provisionFerretDb, startLocalFerretDb } from './local-ferretdb';
export {
  freePort,
  freePorts,
  spawnGuarded,
  type GuardedProcess,
  type ExitInfo,
  type SpawnGuardedOptions,
} from './process';
export { cacheRoot, ensureCached } from './cache';
export { identifyMongoEngine, type MongoEngineFamily, type MongoEngineIdentity } from './mongo-identity';
export { readQueryPlan, type QueryPlan } from './query-plan';
export { waitFor } from './wait';

/** What tests get from the global setup (vitest `inject('engines')`): plain data, no handles. */
export interface EnginesInfo {
  kafkaBrokers: string[];
  mongoUrl: string;
  description: string;
}

export type EnginesKind = 'external' | 'docker' | 'local' | 'mixed';

/**
 * The local MongoDB-compatible engine (no Docker, no MONGODB_URL), from LOCAL_MONGO_ENGINE: mongo-java-server
 * with its H2 file backend by default (atomic single-document updates, indexed lookups; docs/engines.md), or
 * FerretDB 1.24 on SQLite, kept for comparison: its updates are not atomic and its lookups scan.
 */
export type LocalMongoEngine = 'mongo-java-server' | 'ferretdb';

export function localMongoEngine(env: Record<string, string | undefined> = process.env): LocalMongoEngine {
  const value = env.LOCAL_MONGO_ENGINE?.trim() || 'mongo-java-server';
  if (value !== 'mongo-java-server' && value !== 'ferretdb') {
    throw new Error(
      `LOCAL_MONGO_ENGINE must be "mongo-java-server" (the default) or "ferretdb", not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export interface Engines {
  kind: EnginesKind;
  kafkaBrokers: string[];
  /** e.g. mongodb://127.0.0.1:PORT/ */
  mongoUrl: string;
  /**
   * Names engines and versions, e.g. "Apache Kafka 4.3.1 (KRaft, local JVM) at 127.0.0.1:41234; mongo-java-server
   * 1.47.0 (H2 file, MongoDB emulator) at 127.0.0.1:40111"
   */
  description: string;
  /** Per-run directory holding data and engine logs (local engines only). */
  runDir?: string;
  /** Graceful broker restart on the same address and data; local engines only. */
  restartKafka(): Promise<void>;
  /** Broker outage on demand (local engines only); startKafka() brings it back on the same address. */
  stopKafka(): Promise<void>;
  startKafka(): Promise<void>;
  /** A broker that stalls with its connections open (SIGSTOP), then wakes (SIGCONT); local engines only. */
  pauseKafka(): Promise<void>;
  resumeKafka(): Promise<void>;
  /** Database outage on demand (local engines only); startMongo() brings it back on the same address and data. */
  stopMongo(): Promise<void>;
  startMongo(): Promise<void>;
  /** Stops what was started here (never external engines) and deletes the run directory. Idempotent. */
  stop(): Promise<void>;
  /** The local multi-broker Kafka (`kafkaBrokers` > 1): each broker on its own, and its ISR state. */
  kafkaCluster?: Pick<
    LocalKafkaCluster,
    'nodes' | 'replicationFactor' | 'minInsyncReplicas' | 'underReplicatedPartitions'
  >;
  /** The replication factor topics should get here (3 on a three-broker cluster, else 1). */
  kafkaReplicationFactor: number;
}

export interface StartEnginesOptions {
  /** Where KAFKA_BROKERS / MONGODB_URL / DOCKER_HOST are read from; defaults to process.env. */
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
  /** Readiness deadline for each engine once its process or container is up (default 90 s). */
  deadlineMs?: number;
  /** false skips the Docker probe and goes straight to local engines. */
  docker?: boolean;
  /**
   * Local Kafka brokers to run: 1 by default; 3 for a cluster whose topics can have replication factor
   * 3 and min.insync.replicas 2, as in production. More than one needs local engines (no KAFKA_BROKERS, no Docker).
   */
  kafkaBrokers?: number;
}

interface KafkaPart {
  kind: 'external' | 'docker' | 'local';
  brokers: string[];
  description: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
  cluster?: LocalKafkaCluster;
}

interface MongoPart {
  kind: 'external' | 'docker' | 'local';
  url: string;
  description: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const defaultLog = (line: string) => {
  process.stderr.write(`[engines] ${line}\n`);
};

/**
 * Real Kafka and MongoDB-compatible engines, from the first source that works: KAFKA_BROKERS / MONGODB_URL,
 * then Docker (testcontainers), then local processes built from source and cached per version.
 */
export async function startEngines(options: StartEnginesOptions = {}): Promise<Engines> {
  const env = options.env ?? process.env;
  const log = options.log ?? defaultLog;
  const deadlineMs = options.deadlineMs ?? 90_000;

  const externalBrokers = parseBrokers(env.KAFKA_BROKERS);
  const externalMongo = env.MONGODB_URL?.trim() || undefined;
  const needKafka = externalBrokers === undefined;
  const needMongo = externalMongo === undefined;
  const mongoEngine = localMongoEngine(env);
  const brokerCount = options.kafkaBrokers ?? 1;
  if (brokerCount > 1 && !needKafka)
    throw new Error(`kafkaBrokers: ${brokerCount} starts a local cluster; unset KAFKA_BROKERS to use it`);

  let kafka: KafkaPart | undefined = externalBrokers && externalKafka(externalBrokers);
  let mongo: MongoPart | undefined = externalMongo === undefined ? undefined : await externalMongoPart(externalMongo);
  let runDir: string | undefined;

  try {
    if ((needKafka || needMongo) && options.docker !== false && brokerCount === 1 && (await dockerAvailable(env))) {
      log('starting engines in Docker (testcontainers)');
      const [k, m] = await settleAll([
        needKafka ? dockerKafkaPart() : undefined,
        needMongo ? dockerMongoPart() : undefined,
      ]);
      kafka ??= k;
      mongo ??= m;
    } else if (needKafka || needMongo) {
      await assertLocalPrerequisites({
        kafka: needKafka,
        mongo: needMongo ? mongoEngine : undefined,
        dockerSkipped: options.docker === false,
      });
      const [kafkaLibs, mongoBuild] = await settleAll([
        needKafka ? provisionKafka({ log }) : undefined,
        needMongo ? provisionLocalMongo(mongoEngine, log) : undefined,
      ]);
      await sweepStaleRunDirs();
      runDir = await mkdtemp(join(tmpdir(), `checkout-engines-${process.pid}-`));
      const dir = runDir;
      const [k, m] = await settleAll([
        kafkaLibs === undefined ? undefined : localKafkaPart(kafkaLibs, dir, deadlineMs, brokerCount),
        mongoBuild === undefined ? undefined : localMongoPart(mongoEngine, mongoBuild, dir, deadlineMs),
      ]);
      kafka ??= k;
      mongo ??= m;
    }
  } catch (error) {
    // settleAll has already closed whichever half did come up.
    if (runDir) await rm(runDir, { recursive: true, force: true });
    throw error;
  }
  if (!kafka || !mongo) throw new Error('internal error: an engine was neither given nor started');

  const kind: EnginesKind = kafka.kind === mongo.kind ? kafka.kind : 'mixed';
  const k = kafka;
  const m = mongo;
  let stopping: Promise<void> | undefined;
  return {
    kind,
    kafkaBrokers: k.brokers,
    mongoUrl: m.url,
    description: `${k.description}; ${m.description}`,
    ...(runDir === undefined ? {} : { runDir }),
    ...(k.cluster && { kafkaCluster: k.cluster }),
    kafkaReplicationFactor: k.cluster?.replicationFactor ?? 1,
    restartKafka: () => k.restart(),
    stopKafka: () => k.stop(),
    startKafka: () => k.start(),
    pauseKafka: () => k.pause(),
    resumeKafka: () => k.resume(),
    stopMongo: () => m.stop(),
    startMongo: () => m.start(),
    stop() {
      stopping ??= (async () => {
        const results = await Promise.allSettled([k.close(), m.close()]);
        if (runDir) await rm(runDir, { recursive: true, force: true });
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      })();
      return stopping;
    },
  };
}

/**
 * Awaits every promise; if any fails, closes the parts that did start (so a half-started pair never leaks)
 * and rethrows the first failure.
 */
async function settleAll<A, B>(
  promises: [Promise<A> | undefined, Promise<B> | undefined],
): Promise<[A | undefined, B | undefined]> {
  const results = await Promise.allSettled(promises.map((p): Promise<unknown> => p ?? Promise.resolve(undefined)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(
      results.map((r) => {
        const value = r.status === 'fulfilled' ? (r.value as { close?: () => Promise<void> } | undefined) : undefined;
        return value?.close?.() ?? Promise.resolve();
      }),
    );
    throw failed.reason;
  }
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [A | undefined, B | undefined];
}

export function parseBrokers(value: string | undefined): string[] | undefined {
  const brokers = (value ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return brokers.length > 0 ? brokers : undefined;
}

const notSupported = (what: string, kind: string) => () =>
  Promise.reject(new Error(`${what} is not supported for ${kind} engines (only for local ones)`));

function externalKafka(brokers: string[]): KafkaPart {
  return {
    kind: 'external',
    brokers,
    description: `Kafka (external) at ${brokers.join(',')}`,
    restart: notSupported('restartKafka', 'external'),
    stop: notSupported('stopKafka', 'external'),
    start: notSupported('startKafka', 'external'),
    pause: notSupported('pauseKafka', 'external'),
    resume: notSupported('resumeKafka', 'external'),
    close: async () => {},
  };
}

async function externalMongoPart(url: string): Promise<MongoPart> {
  const engine = await describeMongo(url).catch(() => 'MongoDB-compatible engine');
  return {
    kind: 'external',
    url,
    description: `${engine} (external) at ${mongoHost(url)}`,
    stop: notSupported('stopMongo', 'external'),
    start: notSupported('startMongo', 'external'),
    close: async () => {},
  };
}

async function dockerKafkaPart(): Promise<KafkaPart> {
  const container = await startDockerKafka();
  // Restarting the container would remap its port and break the advertised listener, so no restart here.
  return {
    kind: 'docker',
    brokers: container.brokers,
    description: container.description,
    restart: notSupported('restartKafka', 'Docker'),
    stop: notSupported('stopKafka', 'Docker'),
    start: notSupported('startKafka', 'Docker'),
    pause: notSupported('pauseKafka', 'Docker'),
    resume: notSupported('resumeKafka', 'Docker'),
    close: () => container.stop(),
  };
}

async function dockerMongoPart(): Promise<MongoPart> {
  const container = await startDockerMongo();
  const engine = await describeMongo(container.url).catch(() => 'MongoDB');
  return {
    kind: 'docker',
    url: container.url,
    description: `${engine} (Docker) at ${mongoHost(container.url)}`,
    stop: notSupported('stopMongo', 'Docker'),
    start: notSupported('startMongo', 'Docker'),
    close: () => container.stop(),
  };
}

async function localKafkaPart(libs: string, runDir: string, deadlineMs: number, count: number): Promise<KafkaPart> {
  const cluster = count > 1 ? await startLocalKafkaCluster({ libs, runDir, deadlineMs, count }) : undefined;
  const kafka = cluster ?? (await startLocalKafka({ libs, runDir, deadlineMs }));
  return {
    ...(cluster && { cluster }),
    kind: 'local',
    brokers: kafka.brokers,
    description: kafka.description,
    restart: () => kafka.restart(),
    stop: () => kafka.stop(),
    start: () => kafka.start(),
    pause: () => kafka.pause(),
    resume: () => kafka.resume(),
    close: () => kafka.stop(),
  };
}

function provisionLocalMongo(engine: LocalMongoEngine, log: (line: string) => void): Promise<string> {
  return engine === 'ferretdb' ? provisionFerretDb({ log }) : provisionMongoJavaServer({ log });
}

/** `build` is FerretDB's binary, or mongo-java-server's cache directory. */
async function localMongoPart(
  engine: LocalMongoEngine,
  build: string,
  runDir: string,
  deadlineMs: number,
): Promise<MongoPart> {
  const local =
    engine === 'ferretdb'
      ? await startLocalFerretDb({ bin: build, runDir, deadlineMs })
      : await startLocalMongoJavaServer({ dir: build, runDir, deadlineMs, backend: 'h2' });
  return {
    kind: 'local',
    url: local.url,
    description: local.description,
    stop: () => local.stop(),
    start: () => local.start(),
    close: () => local.stop(),
  };
}

function mongoHost(url: string): string {
  try {
    return new URL(url).host; // never the credentials
  } catch {
    return 'unparsable MONGODB_URL';
  }
}

/** Builds (or finds in the cache) the local engines without starting them. */
export async function provisionLocalEngines(
  options: { log?: (line: string) => void; env?: Record<string, string | undefined> } = {},
): Promise<{ kafkaLibs: string; mongoEngine: LocalMongoEngine; mongoBuild: string }> {
  const log = options.log ?? defaultLog;
  const mongoEngine = localMongoEngine(options.env ?? process.env);
  await assertLocalPrerequisites({ kafka: true, mongo: mongoEngine });
  const [kafkaLibs, mongoBuild] = await Promise.all([provisionKafka({ log }), provisionLocalMongo(mongoEngine, log)]);
  return { kafkaLibs, mongoEngine, mongoBuild };
}

/**
 * Checks all tools up front so a machine missing several gets one message naming all of them, rather than
 * one failure per attempt. Build tools are only required while the cache lacks the engine.
 */
async function assertLocalPrerequisites(need: {
  kafka: boolean;
  mongo: LocalMongoEngine | undefined;
  dockerSkipped?: boolean;
}): Promise<void> {
  const missing: string[] = [];
  const javaMongo = need.mongo === 'mongo-java-server';
  if (need.kafka || javaMongo) {
    const java = await toolMajorVersion('java', ['-version'], /version "(?:1\.)?(\d+)/);
    if (java === undefined) missing.push('a JDK 17+ (`java` not found on PATH)');
    else if (java < 17) missing.push(`a JDK 17+ (found Java ${java})`);
    const needMaven = (need.kafka && !(await kafkaCached())) || (javaMongo && !(await mongoJavaServerCached()));
    if (needMaven && !(await which('mvn')))
      missing.push('Maven (`mvn`, to fetch the Kafka and mongo-java-server jars once)');
    if (javaMongo && !(await mongoJavaServerCached()) && !(await which('javac')))
      missing.push('`javac` (a JDK, to compile the mongo-java-server launcher once)');
  }
  if (need.mongo === 'ferretdb' && !(await ferretDbCached())) {
    const go = await toolMajorVersion('go', ['version'], /go1\.(\d+)/);
    if (go === undefined) missing.push('Go 1.22+ (`go`, to build FerretDB once)');
    else if (go < 22) missing.push(`Go 1.22+ (found go1.${go})`);
  }
  if (missing.length > 0) {
    throw new Error(
      `Cannot start Kafka/MongoDB engines: ${need.dockerSkipped ? 'Docker was not to be used' : 'no Docker engine is reachable'}, ` +
        `and running them locally needs ${missing.join(', ')}. ` +
        'Install these, or start Docker, or point KAFKA_BROKERS (host:port,...) and MONGODB_URL at running engines.',
    );
  }
}

async function toolMajorVersion(tool: string, args: string[], pattern: RegExp): Promise<number | undefined> {
  if (!(await which(tool))) return undefined;
  try {
    const { stdout, stderr } = await run(tool, args, { timeoutMs: 30_000 });
    const match = pattern.exec(`${stdout}\n${stderr}`);
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** Run dirs of processes that died without stopping (SIGKILL) would otherwise pile up in /tmp. */
async function sweepStaleRunDirs(): Promise<void> {
  const dir = tmpdir();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = /^checkout-engines-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !isAlive(Number(pid))) {
      await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
    }
  }
}

/** Names the engine behind a MongoDB URL from what it says it is (mongo-identity.ts): the label of its identity. */
export async function describeMongo(mongoUrl: string): Promise<string> {
  return (await identifyMongo(mongoUrl)).label;
}

/** Asks the server behind a MongoDB URL what it is: buildInfo, and serverStatus where buildInfo names no backend. */
export async function identifyMongo(mongoUrl: string): Promise<MongoEngineIdentity> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 });
  try {
    await client.connect();
    const admin = client.db('admin');
    const buildInfo = await admin.command({ buildInfo: 1 });
    // Only FerretDB 2 names its backend, and only there; an engine that refuses serverStatus is still named.
    const serverStatus =
      buildInfo.ferretdb !== undefined ? await admin.command({ serverStatus: 1 }).catch(() => undefined) : undefined;
    return identifyMongoEngine(buildInfo, serverStatus);
  } finally {
    await client.close().catch(() => {});
  }
}
