// The local cluster: N processes of each service, each on ports of its own, behind HAProxy, with the
// services' own calls to each other (gateway → orders/sessions/dispatcher, sessions → orders, dispatcher →
// gateway admin) going through HAProxy's frontends as they would through a Kubernetes Service. A rolling deploy
// replaces replicas the way a Deployment with maxSurge 1, maxUnavailable 0 does, with the same code or another
// build (a release's bundles: the mixed-version rollout): as there, a replica being terminated no longer counts, so
// the next replacement starts while it drains and exits.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackEnvironment, type StackEnvironment, type StackEnvironmentOptions } from '@checkout/testing';
import { buildInfo } from '@checkout/config';
import { createTopics } from '../../deploy/scripts/create-topics';
import { currentBuild } from '../../deploy/scripts/bundle';
import { frontendOf, INTERNAL_CALLS } from './cluster-calls';
import { ClusterReplicas, type Replica, type ReplacementStep } from './cluster-replicas';
import { ensureHaproxy, startHaproxy, type Backend, type Haproxy } from './haproxy';
import { envKey, stackPorts, type ServiceName } from './process-stack';
import type { ServiceBuild } from './releases';

type StackPorts = Awaited<ReturnType<typeof stackPorts>>['ports'];

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
   * SIGKILL of the oldest replica of `service` (a crash; HAProxy's health checks take it out). Resolves once they
   * have, with the requests HAProxy had in flight to it at the kill and those it gave it until then: what the crash
   * may cost.
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
   * HAProxy logs every request with when it began and ended, its frontend, server and both x-internal-version
   * headers into `<logDir>/`HAPROXY_REQUEST_LOG (INTERNAL_CALLS: one frontend per caller), for the soaks: which
   * versions talked in a mixed-version rollout, which requests reached a SIGKILLed replica.
   */
  requestLog?: boolean;
  log: (line: string) => void;
}

/** The request log's file name in the stack's log directory. */
export const HAPROXY_REQUEST_LOG = 'haproxy-requests.log';

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
  const { ports, extra: callFrontendPorts } = await stackPorts(options.gatewayPort, INTERNAL_CALLS.length);
  const { env, callPorts } = clusterEnvironment(options, ports, callFrontendPorts);
  mkdirSync(options.logDir, { recursive: true });
  const { haproxy, runDir } = await startLoadBalancer(options, binary, ports, callPorts);

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

  const replicas = new ClusterReplicas({
    replicas: n,
    env,
    haproxy,
    logDir: options.logDir,
    current,
    startsOn: options.from ?? current,
    ...(options.currentEnv && { currentEnv: options.currentEnv }),
  });
  const stop = async () => {
    await replicas.stopAll();
    await haproxy.stop().catch(() => {});
    await rm(runDir, { recursive: true, force: true });
  };
  try {
    await replicas.startAll();
  } catch (err) {
    await stop();
    throw err;
  }
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
    buildOf: (service) => replicas.buildOf(service),
    live: (service) => replicas.liveOf(service),
    rollOut: (service, onStep, to) => replicas.rollOut(service, onStep, to),
    retirements: () => replicas.retirements(),
    kill: (service) => replicas.kill(service),
    restart: (service, deadlineMs) => replicas.restart(service, deadlineMs),
    notReady: () => replicas.notReady(),
    allReady: async () => (await replicas.notReady()).length === 0,
    stop,
  };
}

/**
 * Every URL a service is given points at a frontend: the stack environment is computed for the frontends' ports,
 * then each caller's URL of each callee is its own frontend's.
 */
function clusterEnvironment(
  options: ClusterStackOptions,
  ports: StackPorts,
  callFrontendPorts: readonly number[],
): { env: StackEnvironment; callPorts: Map<string, number> } {
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
  return { env, callPorts };
}

/** HAProxy with a frontend per listener and per internal call, each backend's slots empty until replicas start. */
async function startLoadBalancer(
  options: ClusterStackOptions,
  binary: string,
  ports: StackPorts,
  callPorts: ReadonlyMap<string, number>,
): Promise<{ haproxy: Haproxy; runDir: string }> {
  const runDir = await mkdtemp(join(tmpdir(), 'checkout-haproxy-'));
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
    // Two more slots than replicas: the surge replica of a rolling deploy and the one it replaced, still draining.
    slots: Array.from({ length: options.replicas + 2 }, () => undefined),
  }));
  const haproxy = await startHaproxy({
    binary,
    runDir,
    backends,
    log: options.log,
    ...(options.requestLog && { requestLog: join(options.logDir, HAPROXY_REQUEST_LOG) }),
  });
  options.log(`load balancer: ${haproxy.version}, config ${join(runDir, 'haproxy.cfg')}`);
  return { haproxy, runDir };
}
