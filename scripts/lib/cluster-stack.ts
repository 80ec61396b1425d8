// The local cluster: N processes of each service, each on ports of its own, behind HAProxy, with the
// services' own calls to each other (gateway → orders/sessions/dispatcher, sessions → orders, dispatcher →
// gateway admin) going through HAProxy's frontends as they would through a Kubernetes Service. A rolling deploy
// replaces replicas the way a Deployment with maxSurge 1, maxUnavailable 0 does, with the same code or another
// build (a release's bundles: the mixed-version rollout): as there, a replica being terminated no longer counts, so
// the next replacement starts while it drains and exits.
import { mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, waitFor, type GuardedProcess } from '@checkout/engines';
import {
  releaseOnlyEnv,
  stackEnvironment,
  type StackEnvironment,
  type StackEnvironmentOptions,
} from '@checkout/testing';
import { request } from 'undici';
import { buildInfo } from '@checkout/config';
import { createTopics } from '../../deploy/scripts/create-topics';
import { currentBuild } from '../../deploy/scripts/bundle';
import { ensureHaproxy, HEALTH_DRAIN_MS, startHaproxy, type Backend, type Haproxy } from './haproxy';
import { envKey, SERVICES, spawnService, stackPorts, type ServiceName } from './process-stack';
import type { ServiceBuild } from './releases';

export interface Replica {
  service: ServiceName;
  /** Unique per service over the stack's life: gateway#3 is the third gateway process started. */
  generation: number;
  /** HAProxy server slot (1-based) it occupies in its service's backend(s). */
  slot: number;
  port: number;
  /** The gateway's operators' listener. */
  adminPort?: number;
  /** What it runs: a release's bundles, or this checkout. */
  build: ServiceBuild;
  proc: GuardedProcess;
}

export interface ReplacementStep {
  service: ServiceName;
  replaced: string;
  by: string;
  startedAt: number;
  /** New process started → ready and in rotation. */
  readyMs: number;
  /** When the new replica joined the rotation (both builds serve from then until finishedAt). */
  readyAt: number;
  /** The build the old replica ran and the one the new runs. */
  fromVersion: string;
  toVersion: string;
  /** SIGTERM → the old process exited (its drain delay, in-flight requests, consumers leaving their groups). */
  stopMs: number;
  finishedAt: number;
  /** The old process's exit code (0: a clean graceful stop). */
  exitCode: number | null;
}

export interface ClusterStack {
  env: StackEnvironment;
  replicas: number;
  logDir: string;
  haproxy: Haproxy;
  /** The load balancer's frontends. */
  frontends: { gateway: string; admin: string; orders: string; sessions: string; dispatcher: string };
  /** This checkout's build, as the stack runs it (its sources under tsx, or its bundles). */
  current: ServiceBuild;
  /** What the next replica of `service` runs: the build its last rollout went to, else the one the stack began with. */
  buildOf(service: ServiceName): ServiceBuild;
  live(service: ServiceName): readonly Replica[];
  /**
   * Replaces every replica of `service`, one at a time (maxSurge 1, maxUnavailable 0), with replicas of `to`
   * (default: the build it runs now; a release's build for a rollback). Resolves, as `kubectl rollout status`
   * does, once the last new replica is ready and in rotation; each replaced replica is out of rotation by then and
   * exits meanwhile (Kubernetes does not count a terminating pod against maxSurge), and `onStep` is told each
   * replacement when its old replica has exited. `retirements()` waits for those exits.
   */
  rollOut(service: ServiceName, onStep?: (step: ReplacementStep) => void, to?: ServiceBuild): Promise<void>;
  /** Resolves when every replica a rollout took out of rotation has exited; rejects if one failed to stop. */
  retirements(): Promise<void>;
  /**
   * SIGKILL of the oldest replica of `service` (a crash; HAProxy's health checks take it out). Resolves with the
   * requests HAProxy had in flight to it just before: what the crash may cost.
   */
  kill(service: ServiceName): Promise<number>;
  /** Starts replicas of `service` until it has its N again; resolves when they are ready and in rotation. */
  restart(service: ServiceName, deadlineMs?: number): Promise<void>;
  /** The services with a replica that does not answer /readyz with 200 right now (or fewer than N replicas). */
  notReady(): Promise<ServiceName[]>;
  allReady(): Promise<boolean>;
  stop(): Promise<void>;
}

export interface ClusterStackOptions extends Omit<StackEnvironmentOptions, 'ports'> {
  replicas: number;
  logDir: string;
  /**
   * Replication factor and min ISR for the topics, created before any service starts (deploy/scripts/create-topics.ts).
   */
  replicationFactor: number;
  minInsyncReplicas: number;
  /** The gateway's public frontend port (e.g. 8080 for `npm start`); any free one when not given. */
  gatewayPort?: number;
  /**
   * 'bundle': node on each service's esbuild bundle, as the image runs it (faster starts in a rollout); default tsx.
   */
  runtime?: 'tsx' | 'bundle';
  /** What every service starts on (a release's bundles: `--from`); default this checkout (`current`). */
  from?: ServiceBuild;
  /**
   * Settings only the replicas of this checkout's build get, never a release's (which may not know them): the
   * mixed-version soak turns tracing on in the new code only, as a team shipping tracing would.
   */
  currentEnv?: Record<string, string>;
  /**
   * HAProxy logs every request with its frontend, server and both x-internal-version headers into
   * `<logDir>/haproxy-requests.log` (INTERNAL_CALLS: one frontend per caller), for the mixed-version soak.
   */
  requestLog?: boolean;
  log: (line: string) => void;
}

/**
 * Every internal call between services, each through a frontend of its own (`<listener>.from.<caller>`, the same
 * servers behind it), so that the load balancer's log tells which caller called which replica: the mixed-version
 * rollout soak counts, per contract, the requests an old caller sent a new callee and the other way round.
 */
export const INTERNAL_CALLS = [
  { caller: 'gateway', callee: 'orders', listener: 'orders', env: 'ORDERS_URL' },
  { caller: 'gateway', callee: 'sessions', listener: 'sessions', env: 'SESSIONS_URL' },
  { caller: 'gateway', callee: 'webhook-dispatcher', listener: 'webhook-dispatcher', env: 'DISPATCHER_URL' },
  { caller: 'sessions', callee: 'orders', listener: 'orders', env: 'ORDERS_URL' },
  { caller: 'webhook-dispatcher', callee: 'gateway', listener: 'gateway-admin', env: 'GATEWAY_URL' },
] as const satisfies readonly { caller: ServiceName; callee: ServiceName; listener: string; env: string }[];
export type InternalCall = (typeof INTERNAL_CALLS)[number];
export const frontendOf = (call: InternalCall): string => `${call.listener}.from.${call.caller}`;

/** A service's listeners: the gateway has two, public and admin. */
const listenersOf = (service: ServiceName): string[] =>
  service === 'gateway' ? ['gateway', 'gateway-admin'] : [service];
/** Backends of a service: one per listener, and one per internal call made to it. */
const backendsOf = (service: ServiceName): string[] => [
  ...listenersOf(service),
  ...INTERNAL_CALLS.filter((c) => c.callee === service).map(frontendOf),
];
/** The listener a backend's servers point at. */
const listenerOfBackend = (backend: string): string => backend.split('.from.')[0] as string;

/** `--name N` or `--name=N`: a whole number from 1 to max, or the fallback when absent. */
export function countFlag(args: readonly string[], name: string, fallback: number, max: number): number {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return fallback;
  const raw = args[i]?.includes('=') ? args[i]?.split('=')[1] : args[i + 1];
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`--${name} needs a whole number from 1 to ${max} (got ${raw ?? 'nothing'})`);
  return value;
}

export async function startClusterStack(options: ClusterStackOptions): Promise<ClusterStack> {
  const n = options.replicas;
  if (!Number.isInteger(n) || n < 1 || n > 20) throw new Error(`--replicas must be 1 to 20, not ${n}`);
  const binary = await ensureHaproxy(options.log);
  const bundleDir = options.runtime === 'bundle' ? join(process.cwd(), 'dist', 'cluster-stack') : undefined;
  if (bundleDir) await (await import('../../deploy/scripts/bundle')).bundle(bundleDir);
  const current: ServiceBuild = bundleDir ? { ...currentBuild(), bundleDir } : { ...buildInfo() };
  const builds: Record<ServiceName, ServiceBuild> = {
    orders: options.from ?? current,
    sessions: options.from ?? current,
    'webhook-dispatcher': options.from ?? current,
    gateway: options.from ?? current,
  };
  const { ports, extra: callFrontendPorts } = await stackPorts(options.gatewayPort, INTERNAL_CALLS.length);
  // Every URL a service is given points at a frontend: the stack environment is computed for the frontends' ports,
  // then each caller's URL of each callee is its own frontend's.
  const env = stackEnvironment({ ...options, ports });
  const callPorts = new Map<string, number>();
  for (const [i, call] of INTERNAL_CALLS.entries()) {
    const port = callFrontendPorts[i] as number;
    callPorts.set(frontendOf(call), port);
    env[envKey(call.caller)][call.env] = `http://127.0.0.1:${port}`;
  }
  // Every operator reaches the operators' listener through HAProxy, from its loopback address, which nobody outside
  // this machine has: exempt it from the wrong-token limit, or one caller's guesses lock every operator out.
  env.gateway.ADMIN_AUTH_FAILURES_EXEMPT = '127.0.0.0/8,::1/128';
  mkdirSync(options.logDir, { recursive: true });
  const runDir = await mkdtemp(join(tmpdir(), 'checkout-haproxy-'));
  // Two more slots than replicas: the surge replica of a rolling deploy and the one it replaced, still draining.
  const slotCount = n + 2;
  const frontendPort: Record<string, number> = {
    gateway: ports.gateway,
    'gateway-admin': ports.gatewayAdmin,
    orders: ports.orders,
    sessions: ports.sessions,
    'webhook-dispatcher': ports.dispatcher,
  };
  for (const [name, port] of callPorts) frontendPort[name] = port;
  const backends: Backend[] = Object.entries(frontendPort).map(([name, port]) => ({
    name,
    port,
    slots: Array.from({ length: slotCount }, () => undefined),
  }));
  const haproxy = await startHaproxy({
    binary,
    runDir,
    backends,
    log: options.log,
    ...(options.requestLog && { requestLog: join(options.logDir, 'haproxy-requests.log') }),
  });
  options.log(`load balancer: ${haproxy.version}, config ${join(runDir, 'haproxy.cfg')}`);

  if (options.replicationFactor > 1) {
    // The production topic plan, with the cluster's replication: services find their topics already there.
    await createTopics({
      KAFKA_BROKERS: options.kafkaBrokers.join(','),
      TOPIC_PREFIX: options.namePrefix,
      KAFKA_REPLICATION_FACTOR: String(options.replicationFactor),
      KAFKA_MIN_INSYNC_REPLICAS: String(options.minInsyncReplicas),
      LOG_LEVEL: 'warn',
    });
  }

  const live: Record<ServiceName, Replica[]> = { orders: [], sessions: [], 'webhook-dispatcher': [], gateway: [] };
  const generations: Record<ServiceName, number> = { orders: 0, sessions: 0, 'webhook-dispatcher': 0, gateway: 0 };
  const takenSlots: Record<ServiceName, Set<number>> = {
    orders: new Set(),
    sessions: new Set(),
    'webhook-dispatcher': new Set(),
    gateway: new Set(),
  };
  const name = (r: Replica) =>
    `${r.service}#${r.generation}(:${r.port}${r.build === current ? '' : `, ${r.build.version}`})`;

  const ready = async (port: number): Promise<boolean> => {
    const response = await request(`http://127.0.0.1:${port}/readyz`, { headersTimeout: 5_000, bodyTimeout: 5_000 });
    await response.body.text();
    return response.statusCode === 200;
  };
  const inRotation = async (replica: Replica): Promise<boolean> => {
    const statuses = await haproxy.statuses();
    return backendsOf(replica.service).every((b) => statuses.get(`${b}/s${replica.slot}`) === 'UP');
  };

  /**
   * A new replica on new ports in a free slot; resolves once it answers /readyz 200 and HAProxy has it UP. A port
   * found free can be taken before the replica binds it (the kernel hands the same range out as the local port of
   * outgoing connections, and the suite runs files side by side): a replica that exits with EADDRINUSE is started
   * again on fresh ports, twice at most.
   */
  const startReplica = async (service: ServiceName, deadlineMs: number): Promise<Replica> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startReplicaOnce(service, deadlineMs);
      } catch (err) {
        const portTaken =
          err instanceof ReplicaExitedError &&
          (await readFile(err.logFile, 'utf8').catch(() => '')).includes('EADDRINUSE');
        if (!portTaken || attempt >= 3) throw err;
      }
    }
  };
  /** Finds a free slot and takes it in the same turn: replicas started together must never share one. */
  const takeSlot = async (service: ServiceName): Promise<number> => {
    for (;;) {
      const slot = Array.from({ length: slotCount }, (_, i) => i + 1).find((s) => !takenSlots[service].has(s));
      if (slot !== undefined) {
        takenSlots[service].add(slot);
        return slot;
      }
      // Every slot is held by a live replica or by a replaced one still exiting: the next exit frees one.
      if (retiring.size === 0) throw new Error(`no free load balancer slot for ${service}`);
      await Promise.race(retiring);
    }
  };
  const startReplicaOnce = async (service: ServiceName, deadlineMs: number): Promise<Replica> => {
    const slot = await takeSlot(service);
    const generation = ++generations[service];
    const [port, adminPort] = (await freePorts(service === 'gateway' ? 2 : 1)) as [number, number | undefined];
    const serviceEnv: Record<string, string> = {
      ...env[envKey(service)],
      PORT: String(port),
      ...(adminPort !== undefined && { ADMIN_PORT: String(adminPort) }),
      // Readiness turns 503 first; the listener stays open until HAProxy's checks have taken it out.
      SHUTDOWN_DRAIN_MS: String(HEALTH_DRAIN_MS),
      // D43: each gateway replica enforces its share of the per-key limit.
      ...(service === 'gateway' && { GATEWAY_REPLICAS: String(n) }),
    };
    const build = builds[service];
    const proc = spawnService({
      service,
      env:
        build === current
          ? { ...serviceEnv, ...options.currentEnv }
          : { ...serviceEnv, ...releaseOnlyEnv(env, envKey(service)) },
      logFile: join(options.logDir, `${service}-${generation}.log`),
      name: `${service}-${generation}`,
      ...(build.bundleDir !== undefined && { bundleDir: build.bundleDir }),
    });
    const replica: Replica = {
      service,
      generation,
      slot,
      port,
      ...(adminPort !== undefined && { adminPort }),
      build,
      proc,
    };
    try {
      await waitFor(`${service}#${generation} /readyz`, () => ready(port), {
        deadlineMs,
        intervalMs: 200,
        abortIf: () => {
          if (proc.exitInfo())
            throw new ReplicaExitedError(
              `${service}#${generation}`,
              join(options.logDir, `${service}-${generation}.log`),
            );
        },
      });
      for (const backend of backendsOf(service))
        await haproxy.assign(
          backend,
          slot,
          listenerOfBackend(backend) === 'gateway-admin' ? (adminPort as number) : port,
        );
      await waitFor(`${service}#${generation} in the load balancer's rotation`, () => inRotation(replica), {
        deadlineMs: 15_000,
        intervalMs: 100,
      });
    } catch (err) {
      await proc.stop(5_000).catch(() => {});
      for (const backend of backendsOf(service)) await haproxy.setState(backend, slot, 'maint').catch(() => {});
      takenSlots[service].delete(slot);
      throw err;
    }
    live[service].push(replica);
    return replica;
  };

  /** Out of rotation, then SIGTERM and wait: what Kubernetes does to a pod it removes (endpoints, then the signal). */
  const retire = async (replica: Replica, how: 'graceful' | 'kill'): Promise<number | null> => {
    live[replica.service] = live[replica.service].filter((r) => r !== replica);
    if (how === 'graceful') {
      for (const backend of backendsOf(replica.service)) await haproxy.setState(backend, replica.slot, 'drain');
      // The service's own grace (SHUTDOWN_GRACE_MS) plus its drain delay bound the stop; stop() SIGKILLs after.
      await replica.proc.stop(30_000);
    } else {
      try {
        process.kill(-replica.proc.pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      await replica.proc.waitForExit(10_000);
      // A crash: HAProxy's health checks must find out on their own; the slot is freed when a replacement is up.
      dead.push(replica);
      return replica.proc.exitInfo()?.code ?? null;
    }
    await release(replica);
    return replica.proc.exitInfo()?.code ?? null;
  };
  const dead: Replica[] = [];
  /** Replaced replicas' graceful stops still under way (rollOut does not wait for them), and those that failed. */
  const retiring = new Set<Promise<void>>();
  const retireFailures: Error[] = [];
  const release = async (replica: Replica) => {
    for (const backend of backendsOf(replica.service)) await haproxy.setState(backend, replica.slot, 'maint');
    takenSlots[replica.service].delete(replica.slot);
  };

  const stopAll = async () => {
    await Promise.all(retiring);
    for (const service of [...SERVICES].reverse())
      await Promise.all(live[service].splice(0).map((r) => r.proc.stop(8_000).catch(() => {})));
    await haproxy.stop().catch(() => {});
    await rm(runDir, { recursive: true, force: true });
  };

  try {
    // Orders first (sessions calls it at start), then the rest, each service's replicas together.
    for (const service of SERVICES) await Promise.all(Array.from({ length: n }, () => startReplica(service, 120_000)));
  } catch (err) {
    await stopAll();
    throw err;
  }

  const notReady = async (): Promise<ServiceName[]> => {
    const result: ServiceName[] = [];
    for (const service of SERVICES) {
      const states = await Promise.all(live[service].map((r) => ready(r.port).catch(() => false)));
      if (states.length < n || states.some((s) => !s)) result.push(service);
    }
    return result;
  };

  return {
    env,
    replicas: n,
    logDir: options.logDir,
    haproxy,
    frontends: {
      gateway: env.gatewayUrl,
      admin: `http://127.0.0.1:${ports.gatewayAdmin}`,
      orders: `http://127.0.0.1:${ports.orders}`,
      sessions: `http://127.0.0.1:${ports.sessions}`,
      dispatcher: `http://127.0.0.1:${ports.dispatcher}`,
    },
    current,
    buildOf: (service) => builds[service],
    live: (service) => live[service],
    async rollOut(service, onStep, to) {
      if (to) builds[service] = to;
      // Bounded: exactly the replicas that were live when the rollout began.
      for (const old of [...live[service]]) {
        const startedAt = Date.now();
        const fresh = await startReplica(service, 120_000);
        const readyAt = Date.now();
        const exited: Promise<void> = retire(old, 'graceful')
          .then((exitCode) => {
            const finishedAt = Date.now();
            onStep?.({
              service,
              replaced: name(old),
              by: name(fresh),
              startedAt,
              readyMs: readyAt - startedAt,
              readyAt,
              fromVersion: old.build.version,
              toVersion: fresh.build.version,
              stopMs: finishedAt - readyAt,
              finishedAt,
              exitCode,
            });
          })
          // Kept for retirements() to throw; caught here so a failed stop is never an unhandled rejection.
          .catch((err: unknown) => void retireFailures.push(err instanceof Error ? err : new Error(String(err))))
          .finally(() => retiring.delete(exited));
        retiring.add(exited);
      }
    },
    async retirements() {
      while (retiring.size > 0) await Promise.all(retiring);
      const [failure] = retireFailures.splice(0);
      if (failure !== undefined) throw failure;
    },
    async kill(service) {
      const oldest = live[service][0];
      if (!oldest) return 0;
      const servers = backendsOf(service).map((b) => `${b}/s${oldest.slot}`);
      const before = await haproxy.sessions();
      await retire(oldest, 'kill');
      const after = await haproxy.sessions();
      // What it held when the stats were read, and what reached it between that read and the one after its exit:
      // a request can arrive while the first read's answer is on its way. (One sent to the dead port after the
      // kill counts too, though HAProxy retries it elsewhere: an upper bound, by the few ms of that window.)
      return servers.reduce(
        (sum, s) => sum + (before.get(s)?.current ?? 0) + (after.get(s)?.total ?? 0) - (before.get(s)?.total ?? 0),
        0,
      );
    },
    async restart(service, deadlineMs = 120_000) {
      for (let i = live[service].length; i < n; i++) await startReplica(service, deadlineMs);
      for (const gone of dead.filter((r) => r.service === service)) {
        dead.splice(dead.indexOf(gone), 1);
        await release(gone);
      }
    },
    notReady,
    async allReady() {
      return (await notReady()).length === 0;
    },
    stop: stopAll,
  };
}

/** A replica that exited before it was ready; its log says why. */
class ReplicaExitedError extends Error {
  constructor(
    replica: string,
    readonly logFile: string,
  ) {
    super(`${replica} exited; see ${logFile}`);
  }
}
