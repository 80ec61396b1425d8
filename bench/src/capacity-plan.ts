// The capacity plan's arithmetic, apart from the measuring (bench/src/capacity.ts), so that it is unit-tested:
// from CPU cores measured per process at the bench's load to pods, brokers, partitions and shards at a multiple of
// it. Every assumption the plan rests on is a named constant here, printed with the table.
import { formatColumns } from './load';

/** Plan a pod to use at most this share of its CPU request at the planned load (the HPA's target is 70 %). */
export const HEADROOM = 0.6;
/** Pods per service kept for availability whatever the load (spread over three zones; the PDBs keep two up). */
export const MIN_PODS = 3;
/** vCPU a Kafka broker is planned with (a 2-vCPU broker), and brokers kept whatever the load (replication 3). */
export const BROKER_VCPU = 2;
export const MIN_BROKERS = 3;
/** Kafka writes each message on this many brokers (replication factor 3): the measured broker is a single one. */
export const REPLICATION = 3;
/** vCPU a MongoDB shard's primary is planned with; each shard is a replica set of three such members. */
export const SHARD_VCPU = 8;
/** Partition counts are multiples of this, so that 1, 2, 3 and 6 brokers or consumers share them evenly. */
export const PARTITION_STEP = 6;
/** Hyperswitch's published sizing guide: requests/s one router pod serves, and vCPU per request/s. */
const HYPERSWITCH = { requestsPerPod: 15, vcpuPerRequestPerSecond: 0.14 } as const;

/** The service Deployments the plan sizes, with the CPU request of their pods (deploy/k8s). */
export interface PlannedService {
  name: string;
  /** The process whose CPU the bench measured for it. */
  process: string;
  cpuRequest: number;
}

/** A topic, the Deployments whose groups read it (its partitions bound their busy pods), and its partitions today. */
export interface PlannedTopic {
  topic: string;
  consumers: readonly string[];
  partitions: number;
}

/** What the bench measured at today's load: cores used per process, loaded and idle. */
export interface Measured {
  requestsPerSecond: number;
  /** CPU cores used per process while the mix ran. */
  loadedCores: ReadonlyMap<string, number>;
  /** CPU cores used per process with no request: what a pod burns whatever its load (fetch loops, sweeps). */
  idleCores: ReadonlyMap<string, number>;
}

/** Cores the load itself costs a process at `multiple` × today's load (idle is a pod's, not the load's). */
function loadCores(measured: Measured, process: string, multiple: number): number {
  const loaded = measured.loadedCores.get(process) ?? 0;
  return Math.max(0, loaded - (measured.idleCores.get(process) ?? 0)) * multiple;
}

/** Pods of a service at `multiple` × today's load: each pod gives HEADROOM of its request, less its idle burn. */
export function podsFor(service: PlannedService, measured: Measured, multiple: number): number {
  const idle = measured.idleCores.get(service.process) ?? 0;
  // A pod whose idle burn would eat most of its headroom still serves half of it: the request is then too small.
  const perPod = Math.max(HEADROOM * service.cpuRequest - idle, (HEADROOM * service.cpuRequest) / 2);
  return Math.max(MIN_PODS, Math.ceil(loadCores(measured, service.process, multiple) / perPod));
}

/**
 * Brokers: the broker's cores for the load (net of idle) times the replicas each message is written to, over one
 * broker's planned share. Linear in the load, though a broker batches more as it grows: an upper bound.
 */
export function brokersFor(measured: Measured, kafkaProcess: string, multiple: number): number {
  const cores = loadCores(measured, kafkaProcess, multiple) * REPLICATION;
  return Math.max(MIN_BROKERS, Math.ceil(cores / (HEADROOM * BROKER_VCPU)));
}

/**
 * Shards: the engine's cores at the load over one primary's planned share. Measured on the MongoDB-compatible
 * engine, which costs more CPU per command than mongod: an upper bound.
 */
export function shardsFor(measured: Measured, engineProcess: string, multiple: number): number {
  return Math.max(1, Math.ceil(loadCores(measured, engineProcess, multiple) / (HEADROOM * SHARD_VCPU)));
}

/**
 * A topic's partitions at a load: at least the pods of each Deployment reading it, since a group never has more busy
 * members than partitions; never fewer than today (a count is never lowered). Raising one moves keys, so a plan
 * creates topics with the count of the largest load it expects (docs/operations.md, "Topics and partitions").
 */
export function partitionsFor(consumerPods: number, today: number): number {
  return Math.max(today, Math.ceil(consumerPods / PARTITION_STEP) * PARTITION_STEP);
}

export interface CapacityPlan {
  multiples: readonly number[];
  pods: Map<string, number[]>;
  brokers: number[];
  shards: number[];
  partitions: Map<string, number[]>;
  text: string;
}

export function capacityPlan(
  measured: Measured,
  services: readonly PlannedService[],
  topics: readonly PlannedTopic[],
  engines: { kafka: string; mongo: string },
  multiples: readonly number[] = [1, 10, 100],
): CapacityPlan {
  const pods = new Map(services.map((s) => [s.name, multiples.map((m) => podsFor(s, measured, m))]));
  const brokers = multiples.map((m) => brokersFor(measured, engines.kafka, m));
  const shards = multiples.map((m) => shardsFor(measured, engines.mongo, m));
  const partitions = new Map(
    topics.map((t) => [
      t.topic,
      multiples.map((_, i) => partitionsFor(Math.max(...t.consumers.map((c) => pods.get(c)?.[i] ?? 0)), t.partitions)),
    ]),
  );
  const rps = multiples.map((m) => m * measured.requestsPerSecond);
  const header = ['', ...multiples.map((m, i) => `${m}× (${Math.round(rps[i] ?? 0)} req/s)`)];
  const vcpu = multiples.map((_, i) =>
    services.reduce((sum, s) => sum + (pods.get(s.name)?.[i] ?? 0) * s.cpuRequest, 0),
  );
  const used = multiples.map((m, i) =>
    services.reduce(
      (sum, s) =>
        sum +
        loadCores(measured, s.process, m) +
        (pods.get(s.name)?.[i] ?? 0) * (measured.idleCores.get(s.process) ?? 0),
      0,
    ),
  );
  const rows = [
    ...services.map((s) => [
      `${s.name} pods (request ${s.cpuRequest * 1000}m)`,
      ...(pods.get(s.name) ?? []).map(String),
    ]),
    ['Kafka brokers', ...brokers.map(String)],
    ...topics.map((t) => [
      `${t.topic} partitions (today ${t.partitions})`,
      ...(partitions.get(t.topic) ?? []).map(String),
    ]),
    ['MongoDB shards', ...shards.map(String)],
    ['services vCPU used (the load, and each pod idle)', ...used.map((v) => v.toFixed(1))],
    ['services vCPU requested', ...vcpu.map((v) => v.toFixed(1))],
    ['services vCPU used per req/s', ...used.map((v, i) => (v / Math.max(rps[i] ?? 0, 1e-9)).toFixed(3))],
    ['services req/s per vCPU requested', ...vcpu.map((v, i) => ((rps[i] ?? 0) / Math.max(v, 1e-9)).toFixed(1))],
    [
      `Hyperswitch guide: router pods (${HYPERSWITCH.requestsPerPod} req/s each)`,
      ...rps.map((r) => String(Math.ceil(r / HYPERSWITCH.requestsPerPod))),
    ],
    [
      `Hyperswitch guide: vCPU (${HYPERSWITCH.vcpuPerRequestPerSecond} per req/s)`,
      ...rps.map((r) => (r * HYPERSWITCH.vcpuPerRequestPerSecond).toFixed(1)),
    ],
  ];
  return { multiples, pods, brokers, shards, partitions, text: formatColumns(header, rows) };
}
