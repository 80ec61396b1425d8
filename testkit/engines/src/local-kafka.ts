import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { cacheRoot, ensureCached, exists } from './cache';
import { classArchiveFlags, trainClassArchive } from './class-archive';
import { restartableEngine, freePorts, run } from './process';
import { waitFor } from './wait';

// 4.4.0 is the newest release on Maven Central, but its org.apache.kafka:kafka-tools-api:4.4.0 artifact is
// missing there, so its dependency tree does not resolve; 4.3.1 is the newest version that does.
export const KAFKA_VERSION = '4.3.1';
const SCALA_VERSION = '2.13';
// Kafka 4.x logs through slf4j 1.7 and ships log4j2, but not the binding between them; without it the broker
// falls back to slf4j's no-op logger and a failing broker says nothing.
const LOG4J_SLF4J_VERSION = '2.25.4';

function kafkaCacheDir(root = cacheRoot()): string {
  return join(root, `kafka-${KAFKA_VERSION}`);
}

const brokerJar = (libs: string) => join(libs, `kafka_${SCALA_VERSION}-${KAFKA_VERSION}.jar`);

/** Whether the jars are already cached (then Maven is not needed). */
export const kafkaCached = (root = cacheRoot()) => exists(brokerJar(join(kafkaCacheDir(root), 'libs')));

export function renderPom(): string {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.checkout-engines</groupId>
  <artifactId>kafka-dist</artifactId>
  <version>${KAFKA_VERSION}</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_${SCALA_VERSION}</artifactId>
      <version>${KAFKA_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>${LOG4J_SLF4J_VERSION}</version>
    </dependency>
  </dependencies>
</project>
`;
}

/** Downloads the broker's jars from Maven Central into the cache (once); returns the directory of jars. */
export async function provisionKafka(options: { log?: (line: string) => void } = {}): Promise<string> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const { dir, built } = await ensureCached({
    dir: kafkaCacheDir(),
    isComplete: (dir) => exists(brokerJar(join(dir, 'libs'))),
    log,
    build: async (tmp) => {
      log(`resolving Apache Kafka ${KAFKA_VERSION} jars from Maven Central`);
      await writeFile(join(tmp, 'pom.xml'), renderPom());
      await run(
        'mvn',
        [
          '-B',
          '-q',
          '-f',
          join(tmp, 'pom.xml'),
          'dependency:copy-dependencies',
          `-DoutputDirectory=${join(tmp, 'libs')}`,
          '-DincludeScope=runtime',
        ],
        { cwd: tmp, timeoutMs: 20 * 60_000 },
      );
      if (!(await exists(brokerJar(join(tmp, 'libs'))))) {
        throw new Error(
          `mvn finished but ${brokerJar('libs')} is missing; the Kafka ${KAFKA_VERSION} dependency tree did not resolve`,
        );
      }
    },
  });
  const libs = join(dir, 'libs');
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  // Quiet on a cache hit: only work that takes time is worth a line in test output.
  if (built) log(`cached Apache Kafka ${KAFKA_VERSION} (${(await readdir(libs)).length} jars) in ${libs} in ${took}`);
  await trainClassArchive(dir, (dumpFlag) => startAndStopOnce(libs, dumpFlag), log).catch((err: unknown) =>
    log(`no class-data archive for Kafka (${String(err)}); brokers start without one`),
  );
  return libs;
}

/** One broker started, probed and stopped gracefully with `jvmFlag`: what the class-data archive is trained on. */
async function startAndStopOnce(libs: string, jvmFlag: string): Promise<void> {
  const runDir = await mkdtemp(join(tmpdir(), 'checkout-kafka-training-'));
  try {
    const broker = await startLocalKafka({ libs, runDir, deadlineMs: 120_000, jvmFlags: [jvmFlag] });
    await broker.stop();
  } finally {
    await rm(runDir, { recursive: true, force: true });
  }
}

/**
 * The JVM flags of every Kafka JVM (broker or tool) on the jars in `libs`: the class-data archive, once trained
 * (class-archive.ts).
 */
export const kafkaArchiveFlags = (libs: string): string[] => classArchiveFlags(dirname(libs));

/** A SCRAM-SHA-512 user the broker knows from its first start (a broker that refuses strangers). */
export interface ScramUser {
  username: string;
  password: string;
}

export interface ServerPropertiesInput {
  port: number;
  controllerPort: number;
  dataDir: string;
  /** The client listener requires SASL SCRAM-SHA-512 as this user (also the brokers' own inter-broker user). */
  scram?: ScramUser;
  /**
   * A node of a multi-broker cluster: its id and every node's controller port (the static voter set).
   * Without it, the single node 1 votes for itself alone.
   */
  cluster?: { nodeId: number; controllerPorts: readonly number[] };
}

const jaasQuoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The client listener: plain, or SASL_PLAINTEXT with SCRAM-SHA-512 when `scram` is given. */
function listenerProperties(port: number, controllerPort: number, scram: ScramUser | undefined): string[] {
  const protocol = scram ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
  const common = [
    `listeners=${protocol}://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=${protocol}://127.0.0.1:${port}`,
    `listener.security.protocol.map=${protocol}:${protocol},CONTROLLER:PLAINTEXT`,
    `inter.broker.listener.name=${protocol}`,
  ];
  if (!scram) return common;
  return [
    ...common,
    'sasl.enabled.mechanisms=SCRAM-SHA-512',
    'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
    `listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=${jaasQuoted(scram.username)} password=${jaasQuoted(scram.password)};`,
  ];
}

/**
 * KRaft on loopback only, each node broker and controller in one JVM (combined mode): a single node by default,
 * or one node of a cluster whose controller quorum is every node (three nodes: a majority survives one down).
 */
export function renderServerProperties({
  port,
  controllerPort,
  dataDir,
  scram,
  cluster,
}: ServerPropertiesInput): string {
  const nodeId = cluster?.nodeId ?? 1;
  const voters = cluster
    ? cluster.controllerPorts.map((p, i) => `${i + 1}@127.0.0.1:${p}`).join(',')
    : `1@127.0.0.1:${controllerPort}`;
  const nodes = cluster?.controllerPorts.length ?? 1;
  // With three nodes, production's durability: every internal topic on all three, and a write
  // acknowledged (acks=all) only once two hold it, so losing any one broker loses no acknowledged message.
  const replicas = Math.min(nodes, 3);
  const minIsr = replicas >= 3 ? 2 : 1;
  return [
    'process.roles=broker,controller',
    `node.id=${nodeId}`,
    `controller.quorum.voters=${voters}`,
    'controller.listener.names=CONTROLLER',
    ...listenerProperties(port, controllerPort, scram),
    `log.dirs=${dataDir}`,
    // Internal topics cannot have more replicas than there are brokers.
    `offsets.topic.replication.factor=${replicas}`,
    // The first consumer group otherwise waits for 50 __consumer_offsets partitions to be created and loaded
    // (measured: first join 0.5 s instead of 0.9-1.7 s).
    'offsets.topic.num.partitions=1',
    `transaction.state.log.replication.factor=${replicas}`,
    `transaction.state.log.min.isr=${minIsr}`,
    ...(nodes > 1
      ? [
          `default.replication.factor=${replicas}`,
          `min.insync.replicas=${minIsr}`,
          // Kafka's default, as in production: each preferred-leader election moves leaders again, and a moved
          // leader's writes wait for the followers' next fetch (below) for their acknowledgement. A shorter
          // interval puts those moves inside a rolling restart, during the next broker's (bench/README.md,
          // "Broker restarts"); until the check, the leaders a restart moved stay where they went.
          'leader.imbalance.check.interval.seconds=300',
          // A leader that moved (a broker's controlled shutdown) acknowledges an acks=all write once its follower
          // has fetched it: the follower adds the moved partition to its next fetch request, up to
          // replica.fetch.wait.max.ms later, and if the stopping broker refused its last fetch it first waits
          // replica.fetch.backoff.ms. Kafka's 500 ms and 1 s made each broker restart of the rollout soak delay
          // events by 0.5-1.7 s; 100 ms each cost the followers a few more idle fetches a second
          // (docs/operations.md, "Every leader move").
          'replica.fetch.wait.max.ms=100',
          'replica.fetch.backoff.ms=100',
          // The active controller refuses a restarted broker's new registration (DUPLICATE_BROKER_REGISTRATION)
          // until the old incarnation's session has expired, even after a controlled shutdown: with the default
          // 9 s session, a broker's restart took 9.3 s to be ready instead of 1.8 s whenever it was not the active
          // controller. Heartbeats every second keep a live broker's 4 s session from lapsing.
          'broker.session.timeout.ms=4000',
          'broker.heartbeat.interval.ms=1000',
        ]
      : []),
    // Consumer groups in tests should start consuming at once, not after the default 3 s grace period.
    'group.initial.rebalance.delay.ms=0',
    'num.partitions=1',
    // Services declare their topics; an auto-created topic would hide a missing declaration.
    'auto.create.topics.enable=false',
    '',
  ].join('\n');
}

/** Only WARN and above, into a file: the broker's INFO chatter is useless in test output but a crash is not. */
export function renderLog4j2Config(logFile: string): string {
  return [
    'status = warn',
    'appender.file.type = File',
    'appender.file.name = file',
    `appender.file.fileName = ${logFile}`,
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = warn',
    'rootLogger.appenderRef.file.ref = file',
    '',
  ].join('\n');
}

/**
 * A KRaft cluster id: 16 random bytes, URL-safe base64 without padding (22 characters), like `kafka-storage
 * random-uuid`. It may begin with '-', so it is passed as --cluster-id=<id>: as a separate argument argparse would read
 * it as an option.
 */
export function newClusterId(): string {
  return randomBytes(16).toString('base64url');
}

// A test broker spends its life starting up and idling. C1-only JIT and the serial collector keep the JVM
// from competing for CPU with everything else a test run starts: measured on 2 busy cores, ready in 7-14 s
// instead of 16-19 s. Peak throughput is lower than with C2, which matters only for benchmarks.
export const JVM_OPTIONS = [
  '-Xms256m',
  '-Xmx768m',
  '-XX:TieredStopAtLevel=1',
  '-XX:+UseSerialGC',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

export interface LocalKafka {
  readonly brokers: string[];
  readonly description: string;
  /** Starts the broker again on the same ports and data, after stop(). */
  start(): Promise<void>;
  /** SIGSTOP: the broker stops answering but keeps its connections, and what clients send waits in them. */
  pause(): Promise<void>;
  /** SIGCONT after pause(): the broker works through what waited, requests the clients gave up on included. */
  resume(): Promise<void>;
  /** Graceful shutdown; data and ports stay reserved for start(). */
  stop(): Promise<void>;
  /** SIGKILL: no shutdown at all, for a broker whose data is thrown away next. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

export interface StartLocalKafkaOptions {
  libs: string;
  /** Per-run directory; config, data and logs go below it. */
  runDir: string;
  deadlineMs: number;
  /** Require SASL SCRAM-SHA-512 as this user from every client; default: no authentication. */
  scram?: ScramUser;
  /** More JVM flags for the broker (the class-data archive's training run). */
  jvmFlags?: readonly string[];
}

/** Formats a node's KRaft storage; KIP-900: the cluster learns its first SCRAM users only here. */
export async function formatStorage(input: {
  dir: string;
  log4j: string;
  classpath: string[];
  clusterId: string;
  propsFile: string;
  scram: ScramUser | undefined;
  /** The class-data archive's flag (kafkaArchiveFlags), or none. */
  archive: readonly string[];
}): Promise<void> {
  const { dir, log4j, classpath, clusterId, propsFile, scram } = input;
  const scramUser = scram ? ['--add-scram', `SCRAM-SHA-512=[name=${scram.username},password=${scram.password}]`] : [];
  await run(
    'java',
    [
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      ...input.archive,
      log4j,
      ...classpath,
      'kafka.tools.StorageTool',
      'format',
      `--cluster-id=${clusterId}`,
      '-c',
      propsFile,
      ...scramUser,
    ],
    {
      cwd: dir,
      timeoutMs: 120_000,
    },
  );
}

export async function startLocalKafka(options: StartLocalKafkaOptions): Promise<LocalKafka> {
  const dir = join(options.runDir, 'kafka');
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { recursive: true });
  const [port, controllerPort] = (await freePorts(2)) as [number, number];
  const propsFile = join(dir, 'server.properties');
  const log4jFile = join(dir, 'log4j2.properties');
  const kafkaLog = join(options.runDir, 'kafka.log');
  const stdoutLog = join(options.runDir, 'kafka.out');
  await writeFile(
    propsFile,
    renderServerProperties({ port, controllerPort, dataDir, ...(options.scram && { scram: options.scram }) }),
  );
  await writeFile(log4jFile, renderLog4j2Config(kafkaLog));

  const classpath = ['-cp', join(options.libs, '*')];
  const log4j = `-Dlog4j2.configurationFile=${log4jFile}`;
  const archive = kafkaArchiveFlags(options.libs);
  await formatStorage({ dir, log4j, classpath, clusterId: newClusterId(), propsFile, scram: options.scram, archive });

  const brokers = [`127.0.0.1:${port}`];
  const engine = restartableEngine({
    spawn: {
      name: 'kafka',
      command: 'java',
      args: [...JVM_OPTIONS, ...archive, ...(options.jvmFlags ?? []), log4j, ...classpath, 'kafka.Kafka', propsFile],
      cwd: dir,
      logFile: stdoutLog,
    },
    name: 'Kafka',
    label: `Apache Kafka ${KAFKA_VERSION} at ${brokers[0]}`,
    readiness: 'Kafka readiness (describeCluster + create/delete a probe topic)',
    probe: () => probeKafka(brokers, options.scram),
    deadlineMs: options.deadlineMs,
    intervalMs: 250,
    logFiles: [kafkaLog, stdoutLog],
  });

  await engine.start();
  return {
    brokers,
    description: `Apache Kafka ${KAFKA_VERSION} (KRaft, local JVM) at ${brokers[0]}`,
    start: engine.start,
    stop: engine.stop,
    kill: engine.kill,
    pause: async () => engine.signal('SIGSTOP'),
    resume: async () => engine.signal('SIGCONT'),
    async restart() {
      await engine.stop();
      await engine.start();
    },
  };
}

/** An admin client of the engines' own checks: silent, quick to give up, so a poll never stalls on it. */
export function quietAdmin(clientId: string, brokers: string[], scram: ScramUser | undefined, retries: number): Admin {
  const kafka = new Kafka({
    clientId,
    brokers,
    ...(scram && { sasl: { mechanism: 'scram-sha-512', username: scram.username, password: scram.password } }),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    retry: { retries },
  });
  return kafka.admin();
}

/**
 * Ready means usable, not merely listening: the broker answers metadata requests and its controller can create
 * and delete a topic. Each attempt uses a fresh client with no retries so a slow start never stalls the poll.
 */
export async function probeKafka(brokers: string[], scram?: ScramUser, replicationFactor = 1): Promise<true> {
  const admin = quietAdmin('checkout-engines-probe', brokers, scram, 0);
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length < replicationFactor)
      throw new Error(`describeCluster returned ${cluster.brokers.length} brokers, ${replicationFactor} expected`);
    const topic = `checkout-engines-probe-${randomBytes(4).toString('hex')}`;
    // Not `waitForLeaders: true`: kafkajs gives up on the first UNKNOWN_TOPIC_OR_PARTITION, which a KRaft
    // broker answers while its metadata cache still lags the controller (seen on a busy machine).
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor }], timeout: 5_000 });
    try {
      await waitFor(
        'probe topic leader',
        async () =>
          (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions.every((p) => p.leader >= 0),
        {
          deadlineMs: 10_000,
          intervalMs: 100,
        },
      );
    } catch (error) {
      await admin.deleteTopics({ topics: [topic], timeout: 5_000 }).catch(() => {});
      throw error;
    }
    await admin.deleteTopics({ topics: [topic], timeout: 5_000 });
    return true;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
