import { createServer } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts, spawnGuarded, type GuardedProcess } from '@checkout/engines';
import {
  eventually,
  releaseOnlyEnv,
  stackEnvironment,
  type StackEnvironment,
  type StackEnvironmentOptions,
} from '@checkout/testing';
import { request } from 'undici';

export const SERVICES = ['orders', 'sessions', 'webhook-dispatcher', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface ProcessStack {
  env: StackEnvironment;
  processes: Partial<Record<ServiceName, GuardedProcess>>;
  urls: Record<ServiceName, string>;
  logDir: string;
  /** SIGKILL to the service and its guard (a crash: no shutdown hook runs); resolves once it has exited. */
  kill(service: ServiceName): Promise<void>;
  /** Starts a killed or stopped service again on the same port and environment; resolves when /readyz is 200. */
  restart(service: ServiceName, deadlineMs?: number): Promise<void>;
  /** Whether every service answers /readyz with 200 right now. */
  allReady(): Promise<boolean>;
  /** The services that do not answer /readyz with 200 right now. */
  notReady(): Promise<ServiceName[]>;
  stop(): Promise<void>;
}

export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The ports of a stack's listeners, distinct by construction: taken one at a time, a port just released can be handed
 * out again (about 1 stack in 170 drew a repeat among ten), and two HAProxy frontends on one port split its
 * connections silently.
 */
export async function stackPorts(gatewayPort: number | undefined, extra = 0) {
  const [gateway, gatewayAdmin, orders, sessions, dispatcher, ...rest] = (await freePorts(5 + extra)) as [
    number,
    number,
    number,
    number,
    number,
    ...number[],
  ];
  return { ports: { gateway: gatewayPort ?? gateway, gatewayAdmin, orders, sessions, dispatcher }, extra: rest };
}

/**
 * CPU_PROFILE_DIR=<dir>: the node flags for V8 CPU profiles of a service in <dir>/<name>/, written when it stops
 * (open in Chrome DevTools); none without it. Node's own file names (pid, thread): under tsx the loader's thread
 * writes one too, and with a fixed name it overwrote the main thread's.
 */
export function cpuProfileFlags(name: string): string[] {
  const dir = process.env.CPU_PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, name)}`] : [];
}

/**
 * HEAP_SNAPSHOT_DIR=<dir>: the node flags for a V8 heap snapshot of a service in <dir>/<name>/ each time it gets
 * SIGUSR2 (after a full collection: what is live, for `npm run heap-summary` or Chrome DevTools); none without it.
 */
function heapSnapshotFlags(name: string): string[] {
  const dir = process.env.HEAP_SNAPSHOT_DIR;
  if (!dir) return [];
  mkdirSync(join(dir, name), { recursive: true }); // Node writes no snapshot into a folder that is not there
  return ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${join(dir, name)}`];
}

/** One service process, configured only through `env` as in a deployment, killed if this process dies. */
export function spawnService(options: {
  service: ServiceName;
  env: Record<string, string>;
  logFile: string;
  bundleDir?: string;
  name?: string;
}): GuardedProcess {
  const { service, bundleDir } = options;
  return spawnGuarded({
    name: options.name ?? service,
    command: process.execPath,
    args: [
      ...cpuProfileFlags(options.name ?? service),
      ...heapSnapshotFlags(options.name ?? service),
      ...(bundleDir
        ? ['--enable-source-maps', join(bundleDir, `${service}.mjs`)]
        : ['--import', 'tsx', join('services', service, 'src', 'main.ts')]),
    ],
    cwd: process.cwd(),
    logFile: options.logFile,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...options.env },
  });
}

export const envKey = (
  service: ServiceName,
): keyof Pick<StackEnvironment, 'orders' | 'sessions' | 'dispatcher' | 'gateway'> =>
  service === 'webhook-dispatcher' ? 'dispatcher' : service;

type ProcessStackOptions = Omit<StackEnvironmentOptions, 'ports'> & {
  gatewayPort?: number;
  logDir: string;
  services?: readonly ServiceName[];
  /**
   * 'bundle': node on each service's esbuild bundle, as the image runs it (deploy/scripts/bundle.ts), for
   * figures that should be the deployed ones (the bench's CPU and RSS); default 'tsx' on the sources.
   */
  runtime?: 'tsx' | 'bundle';
  /** Bundles built elsewhere to run instead (a release's: `npm start -- --from`, scripts/lib/releases.ts). */
  bundleDir?: string;
  /** Told each service's address before any starts (a recording proxy in front of one: contract fixtures). */
  onUrls?: (urls: Record<ServiceName, string> & { admin: string }) => void;
};

/**
 * The four services as separate Node processes, each configured through its environment exactly as in a
 * deployment, and each killed if this process dies (the engines' guard script).
 */
export async function startProcessStack(options: ProcessStackOptions): Promise<ProcessStack> {
  const services = options.services ?? SERVICES;
  const bundleDir = await bundleDirFor(options);
  const { ports } = await stackPorts(options.gatewayPort);
  const env = stackEnvironment({ ...options, ports });
  mkdirSync(options.logDir, { recursive: true });
  const urls: Record<ServiceName, string> = {
    orders: `http://127.0.0.1:${ports.orders}`,
    sessions: `http://127.0.0.1:${ports.sessions}`,
    'webhook-dispatcher': `http://127.0.0.1:${ports.dispatcher}`,
    gateway: env.gatewayUrl,
  };
  options.onUrls?.({ ...urls, admin: env.adminUrl });
  const { spawn, awaitReady, ...controls } = superviseServices({
    services,
    env,
    urls,
    logDir: options.logDir,
    bundleDir,
    releaseBundles: options.bundleDir !== undefined,
  });
  try {
    for (const service of services) spawn(service);
    await Promise.all(services.map((service) => awaitReady(service, 90_000)));
  } catch (err) {
    await controls.stop();
    throw err;
  }
  return { env, urls, logDir: options.logDir, ...controls };
}

/** Where the services' bundles are, this checkout's built first for runtime 'bundle'; undefined runs the sources. */
async function bundleDirFor(options: ProcessStackOptions): Promise<string | undefined> {
  if (options.bundleDir !== undefined || options.runtime !== 'bundle') return options.bundleDir;
  const bundleDir = join(process.cwd(), 'dist', 'process-stack');
  await (await import('../../deploy/scripts/bundle')).bundle(bundleDir);
  return bundleDir;
}

/** What a ProcessStack does with its service processes. */
type ServiceControls = Pick<ProcessStack, 'processes' | 'kill' | 'restart' | 'allReady' | 'notReady' | 'stop'>;

/** Spawns, watches, kills and restarts the stack's service processes; `processes` holds each one's latest. */
function superviseServices(stack: {
  services: readonly ServiceName[];
  env: StackEnvironment;
  urls: Record<ServiceName, string>;
  logDir: string;
  bundleDir: string | undefined;
  /** A release's bundles also get the settings only a release reads. */
  releaseBundles: boolean;
}): ServiceControls & {
  spawn: (service: ServiceName) => void;
  awaitReady: (service: ServiceName, deadlineMs: number) => Promise<boolean>;
} {
  const { services, env, urls, logDir, bundleDir } = stack;
  const processes: Partial<Record<ServiceName, GuardedProcess>> = {};
  const logFile = (service: ServiceName) => join(logDir, `${service}.log`);
  const spawn = (service: ServiceName) => {
    processes[service] = spawnService({
      service,
      env: { ...env[envKey(service)], ...(stack.releaseBundles && releaseOnlyEnv(env, envKey(service))) },
      logFile: logFile(service),
      ...(bundleDir && { bundleDir }),
    });
  };
  const ready = async (service: ServiceName): Promise<boolean> => {
    const response = await request(`${urls[service]}/readyz`, { headersTimeout: 5_000, bodyTimeout: 5_000 });
    await response.body.text();
    return response.statusCode === 200;
  };
  const awaitReady = (service: ServiceName, deadlineMs: number) =>
    eventually(
      async () => {
        if (processes[service]?.exitInfo()) throw new Error(`${service} exited; see ${logFile(service)}`);
        return ready(service);
      },
      { deadlineMs, intervalMs: 200, description: `${service} /readyz` },
    );
  const notReady = async (): Promise<ServiceName[]> => {
    const states = await Promise.all(services.map((service) => ready(service).catch(() => false)));
    return services.filter((_, i) => !states[i]);
  };
  return {
    processes,
    spawn,
    awaitReady,
    notReady,
    async allReady() {
      return (await notReady()).length === 0;
    },
    async stop() {
      for (const service of [...services].reverse()) await processes[service]?.stop(8_000);
    },
    async kill(service) {
      const proc = processes[service];
      if (!proc || proc.exitInfo()) return;
      // The whole process group (guard and service): the guard would otherwise outlive a killed child.
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      if (!(await proc.waitForExit(10_000))) throw new Error(`${service} (pid ${proc.pid}) did not exit after SIGKILL`);
    },
    async restart(service, deadlineMs = 90_000) {
      const proc = processes[service];
      if (proc && !proc.exitInfo()) throw new Error(`${service} is still running; kill it first`);
      spawn(service);
      await awaitReady(service, deadlineMs);
    },
  };
}
