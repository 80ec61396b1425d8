import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { restartableEngine, freePorts } from './process';
import {
  formatStorage,
  JVM_OPTIONS,
  KAFKA_VERSION,
  kafkaArchiveFlags,
  newClusterId,
  probeKafka,
  quietAdmin,
  renderLog4j2Config,
  renderServerProperties,
  type LocalKafka,
  type ScramUser,
  type StartLocalKafkaOptions,
} from './local-kafka';

/** One broker of a local cluster: stop, start or kill it on its own (a rolling restart, chaos). */
export interface LocalKafkaNode {
  readonly nodeId: number;
  readonly address: string;
  /** Controlled shutdown (SIGTERM): leadership moves away first; data and ports stay for start(). */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data; resolves once the cluster again has every broker. */
  start(): Promise<void>;
  /** SIGKILL: a crash, no controlled shutdown. */
  kill(): Promise<void>;
}

export interface LocalKafkaCluster extends LocalKafka {
  readonly nodes: readonly LocalKafkaNode[];
  /** Replication factor topics get on this cluster (3 with three brokers), and the min ISR that goes with it. */
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
  /** Partitions whose in-sync replicas are fewer than their replicas right now (0: every follower has caught up). */
  underReplicatedPartitions(): Promise<number>;
}

/** A smaller heap than a single broker's: three JVMs share the test machine's memory with everything else. */
const CLUSTER_JVM_OPTIONS = ['-Xms128m', '-Xmx512m', ...JVM_OPTIONS.filter((o) => !o.startsWith('-Xm'))];

/** What every node of one cluster is formatted and started with. */
interface ClusterLayout {
  count: number;
  clusterId: string;
  controllerPorts: number[];
  replicationFactor: number;
}

type NodeEngine = ReturnType<typeof restartableEngine>;

/** Formats one node's storage with the cluster's id (and SCRAM user) and prepares, without starting, its JVM. */
async function setUpNode(
  options: StartLocalKafkaOptions,
  layout: ClusterLayout,
  port: number,
  i: number,
): Promise<{ nodeId: number; address: string; engine: NodeEngine }> {
  const { count, clusterId, controllerPorts, replicationFactor } = layout;
  const classpath = ['-cp', join(options.libs, '*')];
  const nodeId = i + 1;
  const dir = join(options.runDir, `kafka-${nodeId}`);
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { recursive: true });
  const propsFile = join(dir, 'server.properties');
  const log4jFile = join(dir, 'log4j2.properties');
  const kafkaLog = join(options.runDir, `kafka-${nodeId}.log`);
  const stdoutLog = join(options.runDir, `kafka-${nodeId}.out`);
  await writeFile(
    propsFile,
    renderServerProperties({
      port,
      controllerPort: controllerPorts[i] as number,
      dataDir,
      cluster: { nodeId, controllerPorts },
      ...(options.scram && { scram: options.scram }),
    }),
  );
  await writeFile(log4jFile, renderLog4j2Config(kafkaLog));
  const log4j = `-Dlog4j2.configurationFile=${log4jFile}`;
  const archive = kafkaArchiveFlags(options.libs);
  await formatStorage({ dir, log4j, classpath, clusterId, propsFile, scram: options.scram, archive });
  const address = `127.0.0.1:${port}`;
  const engine = restartableEngine({
    spawn: {
      name: `kafka-${nodeId}`,
      command: 'java',
      args: [...CLUSTER_JVM_OPTIONS, ...archive, log4j, ...classpath, 'kafka.Kafka', propsFile],
      cwd: dir,
      logFile: stdoutLog,
    },
    name: `Kafka node ${nodeId}`,
    label: `Apache Kafka ${KAFKA_VERSION} node ${nodeId} at ${address}`,
    // Ready through this node itself, and with every broker registered: a probe topic with the cluster's
    // replication factor can be created only then.
    readiness: `Kafka node ${nodeId} readiness (describeCluster lists ${count} brokers + create/delete a probe topic with ${replicationFactor} replicas)`,
    probe: () => probeKafka([address], options.scram, replicationFactor),
    deadlineMs: options.deadlineMs,
    intervalMs: 500,
    logFiles: [kafkaLog, stdoutLog],
  });
  return { nodeId, address, engine };
}

/**
 * `count` KRaft nodes, each broker and controller, formatted with one cluster id and voting in one
 * static quorum: topics can have replication factor 3 with min.insync.replicas 2, as production's do, and any
 * one node can be stopped, started or killed while the other two keep the cluster (and its quorum) up.
 */
export async function startLocalKafkaCluster(
  options: StartLocalKafkaOptions & { count: number },
): Promise<LocalKafkaCluster> {
  if (!Number.isInteger(options.count) || options.count < 1 || options.count > 5)
    throw new Error(`a local Kafka cluster has 1 to 5 brokers, not ${options.count}`);
  const count = options.count;
  const ports = await freePorts(2 * count);
  const clientPorts = ports.slice(0, count);
  const brokers = clientPorts.map((p) => `127.0.0.1:${p}`);
  const replicationFactor = Math.min(count, 3);
  const minInsyncReplicas = replicationFactor >= 3 ? 2 : 1;
  const layout: ClusterLayout = {
    count,
    clusterId: newClusterId(),
    controllerPorts: ports.slice(count),
    replicationFactor,
  };

  const nodeSetups = await Promise.all(clientPorts.map((port, i) => setUpNode(options, layout, port, i)));
  // All at once: a node's controller cannot elect a leader, nor its broker register, before a majority is up.
  const started = await Promise.allSettled(nodeSetups.map((n) => n.engine.start()));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(nodeSetups.map((n) => n.engine.stop()));
    throw failed.reason;
  }
  const nodes: LocalKafkaNode[] = nodeSetups.map(({ nodeId, address, engine }) => ({
    nodeId,
    address,
    stop: engine.stop,
    start: engine.start,
    kill: engine.kill,
  }));
  const description = `Apache Kafka ${KAFKA_VERSION} (KRaft, ${count} local JVMs, replication factor ${replicationFactor}, min.insync.replicas ${minInsyncReplicas}) at ${brokers.join(',')}`;
  const all = async (action: (n: LocalKafkaNode) => Promise<void>) => {
    const results = await Promise.allSettled(nodes.map(action));
    const error = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (error) throw error.reason;
  };
  return {
    brokers,
    description,
    nodes,
    replicationFactor,
    minInsyncReplicas,
    start: () => all((n) => n.start()),
    stop: () => all((n) => n.stop()),
    kill: () => all((n) => n.kill()),
    pause: async () => {
      for (const n of nodeSetups) n.engine.signal('SIGSTOP');
    },
    resume: async () => {
      for (const n of nodeSetups) n.engine.signal('SIGCONT');
    },
    async restart() {
      // One node at a time, as an operator would: the cluster stays available throughout.
      for (const node of nodes) {
        await node.stop();
        await node.start();
      }
    },
    underReplicatedPartitions: () => countUnderReplicated(brokers, options.scram),
  };
}

/**
 * Partitions (internal topics included) with fewer in-sync replicas than replicas, asked of whichever broker answers.
 */
export async function countUnderReplicated(brokers: string[], scram?: ScramUser): Promise<number> {
  const admin = quietAdmin('checkout-engines-isr', brokers, scram, 1);
  try {
    await admin.connect();
    const topics = await admin.listTopics();
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
    let under = 0;
    for (const topic of metadata)
      for (const p of topic.partitions) if (p.isr.length < p.replicas.length || p.leader < 0) under++;
    return under;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
