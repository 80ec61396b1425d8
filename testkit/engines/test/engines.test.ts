import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  describeMongo,
  FERRETDB_VERSION,
  identifyMongo,
  kafkaArchiveFlags,
  provisionKafka,
  startEngines,
  waitFor,
  type Engines,
  type EnginesInfo,
} from '../src/index';

declare module 'vitest' {
  export interface ProvidedContext {
    engines: EnginesInfo; // provided by testkit/testing/src/global-setup.ts
  }
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const childScript = fileURLToPath(new URL('./fixtures/start-engines-child.ts', import.meta.url));
const unique = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

function kafkaClient(brokers: string[]): Kafka {
  return new Kafka({ clientId: 'engines-test', brokers, logLevel: logLevel.NOTHING });
}

/**
 * createTopics({waitForLeaders: true}) fails outright when the KRaft broker's metadata cache lags behind the
 * controller for a moment (UNKNOWN_TOPIC_OR_PARTITION), so wait for the leaders ourselves.
 */
async function createTopic(kafka: Kafka, topic: string, numPartitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions, replicationFactor: 1 }], waitForLeaders: false });
    await waitFor(
      `leaders for ${topic}`,
      async () => {
        const partitions = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions ?? [];
        return partitions.length === numPartitions && partitions.every((p) => p.leader >= 0);
      },
      { deadlineMs: 15_000, intervalMs: 100 },
    );
  } finally {
    await admin.disconnect();
  }
}

/** true once nothing accepts connections on host:port any more. */
function portClosed(address: string): Promise<boolean> {
  const [host, port] = address.split(':') as [string, string];
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

const hostPort = (mongoUrl: string) => new URL(mongoUrl).host;

/** Pids whose command line mentions `needle` (the engines and their guards all name their run dir). */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

describe('engines from the global setup', () => {
  const engines = inject('engines');

  it('are also visible to workers through the environment', () => {
    expect(process.env.KAFKA_BROKERS).toBe(engines.kafkaBrokers.join(','));
    expect(process.env.MONGODB_URL).toBe(engines.mongoUrl);
    expect(engines.description).toMatch(/Kafka/);
  });

  it('Kafka creates a 3-partition topic and round-trips a message', async () => {
    const kafka = kafkaClient(engines.kafkaBrokers);
    const topic = `engines-test-${unique()}`;
    const admin = kafka.admin();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    // A short fetch wait: disconnect() waits for the in-flight fetch, 5 s by default.
    const consumer = kafka.consumer({ groupId: `engines-test-${unique()}`, maxWaitTimeInMs: 250 });
    await admin.connect();
    try {
      await createTopic(kafka, topic, 3);
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(metadata.topics[0]?.partitions).toHaveLength(3);

      const received: { partition: number; key: string; value: string }[] = [];
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          received.push({ partition, key: message.key?.toString() ?? '', value: message.value?.toString() ?? '' });
        },
      });
      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'order-1', value: 'hello', partition: 2 }] });

      await waitFor('message consumed', () => received.length > 0, { deadlineMs: 30_000 });
      expect(received).toEqual([{ partition: 2, key: 'order-1', value: 'hello' }]);
    } finally {
      await consumer.disconnect().catch(() => {});
      await producer.disconnect().catch(() => {});
      await admin.deleteTopics({ topics: [topic] }).catch(() => {});
      await admin.disconnect();
    }
  });

  it('MongoDB answers ping, stores a document, and describeMongo names the engine', async () => {
    const client = new MongoClient(engines.mongoUrl, { serverSelectionTimeoutMS: 5_000 });
    try {
      await client.connect();
      expect((await client.db('admin').command({ ping: 1 })).ok).toBe(1);
      const collection = client.db(`engines_test_${unique().replace(/-/g, '_')}`).collection('docs');
      await collection.insertOne({ _id: 'a' as never, n: 1 });
      expect(await collection.findOne({ _id: 'a' as never })).toEqual({ _id: 'a', n: 1 });
      await collection.drop();
    } finally {
      await client.close();
    }

    const engine = await identifyMongo(engines.mongoUrl);
    const label = {
      mongodb: /^MongoDB \d+\.\d+\.\d+$/,
      ferretdb: /^FerretDB v\d+\.\d+\.\d+( on [^()]+)? \(MongoDB \d+\.\d+\.\d+ wire\)$/,
      'mongo-java-server': /^mongo-java-server \(MongoDB \d+\.\d+\.\d+ wire\)$/,
    }[engine.family];
    expect(engine.label).toMatch(label);
    expect(await describeMongo(engines.mongoUrl)).toBe(engine.label);
    // The run's log line names the engine the same way when it asked the engine (MONGODB_URL given, or Docker);
    // a local engine is named by the project, which started it.
    const mongoPart = engines.description.split('; ')[1] ?? '';
    if (/\((external|Docker)\) at /.test(mongoPart)) expect(mongoPart).toContain(engine.label);
    // FerretDB 2 names its backend (PostgreSQL with DocumentDB); the local FerretDB is 1.x on SQLite, which does not.
    if (/^FerretDB v2\./.test(engine.label))
      expect(engine.label).toMatch(/ on PostgreSQL [\d.]+ with DocumentDB [\d.]+ /);
    if (mongoPart.startsWith(`FerretDB ${FERRETDB_VERSION} (SQLite)`))
      expect(engine.label).toMatch(new RegExp(`^FerretDB ${FERRETDB_VERSION} \\(MongoDB [\\d.]+ wire\\)$`));
    if (mongoPart.startsWith('mongo-java-server ')) expect(engine.label).toBe('mongo-java-server (MongoDB 4.4.0 wire)');
  });
});

// What runs when neither KAFKA_BROKERS nor MONGODB_URL is given: the project's own local engines, started here
// whatever this run's engines are, because starting, restarting, stopping and cleaning up those processes is
// what these tests check (mongo-java-server and one KRaft broker, from the cache under ~/.cache/checkout-engines).
describe('the local engines (what runs without KAFKA_BROKERS and MONGODB_URL): lifecycle', () => {
  let own: Engines | undefined;
  afterAll(async () => {
    await own?.stop();
  });

  it(
    'restartKafka keeps the broker address and producers carry on; stopKafka/startKafka make an outage',
    { timeout: 180_000 },
    async () => {
      own = await startEngines({ env: {}, docker: false, log: () => {} });
      expect(own.kind).toBe('local');
      const brokers = [...own.kafkaBrokers];
      const broker = brokers[0] as string;
      const kafka = kafkaClient(brokers);
      const topic = `engines-restart-${unique()}`;
      await createTopic(kafka, topic, 3);

      const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      try {
        await producer.send({ topic, messages: [{ value: 'before' }] });
        await own.restartKafka();
        expect(own.kafkaBrokers).toEqual(brokers);
        // Same producer instance: it has to reconnect on its own, as a service's would.
        await producer.send({ topic, messages: [{ value: 'after' }] });
      } finally {
        await producer.disconnect();
      }

      await own.stopKafka();
      expect(await portClosed(broker)).toBe(true);
      await own.startKafka();
      expect(await portClosed(broker)).toBe(false);

      // The topic and both messages survived: restart keeps the data dir.
      const offsetsAdmin = kafka.admin();
      await offsetsAdmin.connect();
      const offsets = await offsetsAdmin.fetchTopicOffsets(topic);
      await offsetsAdmin.disconnect();
      expect(offsets.reduce((sum, p) => sum + Number(p.high), 0)).toBe(2);

      const runDir = own.runDir as string;
      await own.stop();
      await own.stop(); // idempotent
      expect(await portClosed(broker)).toBe(true);
      expect(await portClosed(hostPort(own.mongoUrl))).toBe(true);
      expect(await processesMentioning(runDir)).toEqual([]);
      await expect(readdir(runDir)).rejects.toThrow(/ENOENT/);
    },
  );

  it('Kafka JVMs map the class-data archive trained when the jars were provisioned', { timeout: 120_000 }, async () => {
    const libs = await provisionKafka();
    const archive = kafkaArchiveFlags(libs);
    expect(archive).toHaveLength(1);
    // -Xshare:on: the JVM refuses to start, rather than carry on without it, if it cannot map the archive.
    const { stdout } = await promisify(execFile)(
      'java',
      [
        '-Xshare:on',
        ...archive,
        '-Xlog:class+load=info',
        '-cp',
        join(libs, '*'),
        'kafka.tools.StorageTool',
        'random-uuid',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const fromArchive = stdout.split('\n').filter((line) => line.includes('source: shared objects file (top)'));
    expect(fromArchive.some((line) => line.includes(' org.apache.kafka.'))).toBe(true);
  });

  it('engines die with their parent process even when it is SIGKILLed', { timeout: 180_000 }, async () => {
    const env = { ...process.env };
    delete env.KAFKA_BROKERS;
    delete env.MONGODB_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', childScript], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let exited = false;
    child.once('exit', () => (exited = true));

    let runDir: string | undefined;
    try {
      const started = await waitFor(
        'child reports its engines',
        () =>
          stdout.includes('\n') && (JSON.parse(stdout.split('\n')[0] as string) as EnginesInfo & { runDir: string }),
        {
          deadlineMs: 150_000,
          intervalMs: 100,
          abortIf: () => {
            if (exited) throw new Error(`child exited before its engines were ready:\n${stderr}`);
          },
        },
      );
      runDir = started.runDir;
      const addresses = [...started.kafkaBrokers, hostPort(started.mongoUrl)];
      for (const address of addresses) expect(await portClosed(address)).toBe(false);
      expect((await processesMentioning(runDir)).length).toBeGreaterThanOrEqual(4); // 2 guards + 2 engines

      child.kill('SIGKILL');
      await waitFor(
        'engine ports closed after parent SIGKILL',
        async () => (await Promise.all(addresses.map(portClosed))).every(Boolean),
        {
          deadlineMs: 30_000,
        },
      );
      const dir = runDir;
      await waitFor('no engine or guard process left', async () => (await processesMentioning(dir)).length === 0, {
        deadlineMs: 15_000,
      });
    } finally {
      if (!exited) child.kill('SIGKILL');
      if (runDir) await rm(runDir, { recursive: true, force: true });
    }
  });
});
