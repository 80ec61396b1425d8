import { rm } from 'node:fs/promises';
import { dockerAvailable } from './docker';
import {
  dockerKafkaPart,
  dockerMongoPart,
  externalKafka,
  externalMongoPart,
  localKafkaPart,
  localMongoPart,
  type KafkaPart,
  type MongoPart,
} from './engine-parts';
import { createRunDir } from './engine-run-dir';
import { defaultLog, localMongoEngine, parseBrokers, type LocalMongoEngine } from './engine-settings';
import { provisionKafka } from './local-kafka';
import type { LocalKafkaCluster } from './local-kafka-cluster';
import { assertLocalPrerequisites } from './local-prerequisites';
import { provisionLocalMongo } from './provision-local-engines';

/** What tests get from the global setup (vitest `inject('engines')`): plain data, no handles. */
export interface EnginesInfo {
  kafkaBrokers: string[];
  mongoUrl: string;
  description: string;
}

export type EnginesKind = 'external' | 'docker' | 'local' | 'mixed';

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

/** The engines no KAFKA_BROKERS / MONGODB_URL gives, which startEngines starts itself, and how. */
interface MissingEngines {
  kafka: boolean;
  mongo: boolean;
  mongoEngine: LocalMongoEngine;
  brokerCount: number;
  deadlineMs: number;
  log: (line: string) => void;
}

interface StartedParts {
  kafka: KafkaPart | undefined;
  mongo: MongoPart | undefined;
  runDir?: string;
}

/**
 * Real Kafka and MongoDB-compatible engines, from the first source that works: KAFKA_BROKERS / MONGODB_URL,
 * then Docker (testcontainers), then local processes built from source and cached per version.
 */
export async function startEngines(options: StartEnginesOptions = {}): Promise<Engines> {
  const env = options.env ?? process.env;
  const externalBrokers = parseBrokers(env.KAFKA_BROKERS);
  const externalMongo = env.MONGODB_URL?.trim() || undefined;
  const missing: MissingEngines = {
    kafka: externalBrokers === undefined,
    mongo: externalMongo === undefined,
    mongoEngine: localMongoEngine(env),
    brokerCount: options.kafkaBrokers ?? 1,
    deadlineMs: options.deadlineMs ?? 90_000,
    log: options.log ?? defaultLog,
  };
  if (missing.brokerCount > 1 && !missing.kafka)
    throw new Error(`kafkaBrokers: ${missing.brokerCount} starts a local cluster; unset KAFKA_BROKERS to use it`);

  const givenKafka = externalBrokers && externalKafka(externalBrokers);
  const givenMongo = externalMongo === undefined ? undefined : await externalMongoPart(externalMongo);
  const started = await startMissingEngines(missing, options.docker, env);
  const kafka = givenKafka ?? started.kafka;
  const mongo = givenMongo ?? started.mongo;
  if (!kafka || !mongo) throw new Error('internal error: an engine was neither given nor started');
  return assembleEngines(kafka, mongo, started.runDir);
}

async function startMissingEngines(
  missing: MissingEngines,
  docker: boolean | undefined,
  env: Record<string, string | undefined>,
): Promise<StartedParts> {
  if (!missing.kafka && !missing.mongo) return { kafka: undefined, mongo: undefined };
  if (docker !== false && missing.brokerCount === 1 && (await dockerAvailable(env))) {
    missing.log('starting engines in Docker (testcontainers)');
    const [kafka, mongo] = await settleAll([
      missing.kafka ? dockerKafkaPart() : undefined,
      missing.mongo ? dockerMongoPart() : undefined,
    ]);
    return { kafka, mongo };
  }
  return startLocalEngines(missing, docker === false);
}

async function startLocalEngines(missing: MissingEngines, dockerSkipped: boolean): Promise<StartedParts> {
  const { mongoEngine, deadlineMs, brokerCount, log } = missing;
  await assertLocalPrerequisites({
    kafka: missing.kafka,
    mongo: missing.mongo ? mongoEngine : undefined,
    dockerSkipped,
  });
  const [kafkaLibs, mongoBuild] = await settleAll([
    missing.kafka ? provisionKafka({ log }) : undefined,
    missing.mongo ? provisionLocalMongo(mongoEngine, log) : undefined,
  ]);
  const runDir = await createRunDir();
  try {
    const [kafka, mongo] = await settleAll([
      kafkaLibs === undefined ? undefined : localKafkaPart(kafkaLibs, runDir, deadlineMs, brokerCount),
      mongoBuild === undefined ? undefined : localMongoPart(mongoEngine, mongoBuild, runDir, deadlineMs),
    ]);
    return { kafka, mongo, runDir };
  } catch (error) {
    // settleAll has already closed whichever half did come up.
    await rm(runDir, { recursive: true, force: true });
    throw error;
  }
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

function assembleEngines(kafka: KafkaPart, mongo: MongoPart, runDir: string | undefined): Engines {
  let stopping: Promise<void> | undefined;
  return {
    kind: kafka.kind === mongo.kind ? kafka.kind : 'mixed',
    kafkaBrokers: kafka.brokers,
    mongoUrl: mongo.url,
    description: `${kafka.description}; ${mongo.description}`,
    ...(runDir === undefined ? {} : { runDir }),
    ...(kafka.cluster && { kafkaCluster: kafka.cluster }),
    kafkaReplicationFactor: kafka.cluster?.replicationFactor ?? 1,
    restartKafka: () => kafka.restart(),
    stopKafka: () => kafka.stop(),
    startKafka: () => kafka.start(),
    pauseKafka: () => kafka.pause(),
    resumeKafka: () => kafka.resume(),
    stopMongo: () => mongo.stop(),
    startMongo: () => mongo.start(),
    stop() {
      stopping ??= (async () => {
        const results = await Promise.allSettled([kafka.close(), mongo.close()]);
        if (runDir) await rm(runDir, { recursive: true, force: true });
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      })();
      return stopping;
    },
  };
}
