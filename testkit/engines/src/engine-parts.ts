import { startDockerKafka, startDockerMongo } from './docker';
import type { LocalMongoEngine } from './engine-settings';
import { describeMongo } from './identify-mongo';
import { startLocalFerretDb } from './local-ferretdb';
import { startLocalKafka } from './local-kafka';
import { startLocalKafkaCluster, type LocalKafkaCluster } from './local-kafka-cluster';
import { startLocalMongoJavaServer } from './local-mongo-java-server';

/** One Kafka, whichever source it came from, behind the controls startEngines hands out. */
export interface KafkaPart {
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

/** One MongoDB-compatible engine, whichever source it came from, behind the controls startEngines hands out. */
export interface MongoPart {
  kind: 'external' | 'docker' | 'local';
  url: string;
  description: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const notSupported = (what: string, kind: string) => () =>
  Promise.reject(new Error(`${what} is not supported for ${kind} engines (only for local ones)`));

/** An engine this process did not start is not stopped, restarted or paused by it. */
function fixedKafka(kind: string): Pick<KafkaPart, 'restart' | 'stop' | 'start' | 'pause' | 'resume'> {
  return {
    restart: notSupported('restartKafka', kind),
    stop: notSupported('stopKafka', kind),
    start: notSupported('startKafka', kind),
    pause: notSupported('pauseKafka', kind),
    resume: notSupported('resumeKafka', kind),
  };
}

function fixedMongo(kind: string): Pick<MongoPart, 'stop' | 'start'> {
  return { stop: notSupported('stopMongo', kind), start: notSupported('startMongo', kind) };
}

export function externalKafka(brokers: string[]): KafkaPart {
  return {
    kind: 'external',
    brokers,
    description: `Kafka (external) at ${brokers.join(',')}`,
    ...fixedKafka('external'),
    close: async () => {},
  };
}

export async function externalMongoPart(url: string): Promise<MongoPart> {
  const engine = await describeMongo(url).catch(() => 'MongoDB-compatible engine');
  return {
    kind: 'external',
    url,
    description: `${engine} (external) at ${mongoHost(url)}`,
    ...fixedMongo('external'),
    close: async () => {},
  };
}

export async function dockerKafkaPart(): Promise<KafkaPart> {
  const container = await startDockerKafka();
  // Restarting the container would remap its port and break the advertised listener, so no restart here.
  return {
    kind: 'docker',
    brokers: container.brokers,
    description: container.description,
    ...fixedKafka('Docker'),
    close: () => container.stop(),
  };
}

export async function dockerMongoPart(): Promise<MongoPart> {
  const container = await startDockerMongo();
  const engine = await describeMongo(container.url).catch(() => 'MongoDB');
  return {
    kind: 'docker',
    url: container.url,
    description: `${engine} (Docker) at ${mongoHost(container.url)}`,
    ...fixedMongo('Docker'),
    close: () => container.stop(),
  };
}

export async function localKafkaPart(
  libs: string,
  runDir: string,
  deadlineMs: number,
  count: number,
): Promise<KafkaPart> {
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
    // The run directory, and the data in it, is deleted next. Three brokers shutting down together wait on each
    // other's controlled shutdowns and the controller quorum they take down: 6 s, for data nobody reads again.
    close: () => kafka.kill(),
  };
}

/** `build` is FerretDB's binary, or mongo-java-server's cache directory. */
export async function localMongoPart(
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
