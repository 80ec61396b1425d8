import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePorts, waitFor, type GuardedProcess } from '@checkout/engines';
import { releaseOnlyEnv, type StackEnvironment } from '@checkout/testing';
import { request } from 'undici';
import { backendsOf, listenerOfBackend } from './cluster-calls';
import { HEALTH_DRAIN_MS, type Haproxy } from './haproxy';
import { envKey, SERVICES, spawnService, type ServiceName } from './process-stack';
import type { ServiceBuild } from './releases';

// The local cluster's replicas: each started on ports of its own into a free load balancer slot, replaced the way a
// Deployment with maxSurge 1, maxUnavailable 0 does, killed and restarted (cluster-stack.ts sets the cluster up).

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

export interface ReplicaSettings {
  /** N: the replicas of each service. */
  replicas: number;
  /** Each service's environment, its calls pointed at the load balancer's frontends. */
  env: StackEnvironment;
  haproxy: Haproxy;
  logDir: string;
  /** This checkout's build, and what every service starts on (a release's build, or this one). */
  current: ServiceBuild;
  startsOn: ServiceBuild;
  /** Settings for replicas of this checkout only (not a release's). */
  currentEnv?: Record<string, string>;
}

const byService = <T>(make: () => T): Record<ServiceName, T> =>
  Object.fromEntries(SERVICES.map((service) => [service, make()])) as Record<ServiceName, T>;

export class ClusterReplicas {
  private readonly live = byService<Replica[]>(() => []);
  private readonly generations = byService(() => 0);
  private readonly takenSlots = byService(() => new Set<number>());
  /** Killed replicas whose slots wait for their replacement (HAProxy's checks took them out). */
  private readonly dead: Replica[] = [];
  /** Replaced replicas' graceful stops still under way (rollOut does not wait for them), and those that failed. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly retireFailures: Error[] = [];
  /** Two more slots than replicas: the surge replica of a rolling deploy and the one it replaced, still draining. */
  private readonly slotCount: number;
  /** What the next replica of each service runs: the build its last rollout went to. */
  private readonly builds: Record<ServiceName, ServiceBuild>;

  constructor(private readonly settings: ReplicaSettings) {
    this.slotCount = settings.replicas + 2;
    this.builds = byService(() => settings.startsOn);
  }

  liveOf(service: ServiceName): readonly Replica[] {
    return this.live[service];
  }

  buildOf(service: ServiceName): ServiceBuild {
    return this.builds[service];
  }

  /**
   * Every replica of every service at once, as a fresh cluster's Deployments start: no service needs another to
   * start (each creates the topics it consumes), and one service after another took 16 s for eight replicas, 11 s
   * at once. A replica that fails is thrown once every other has settled, so the caller's stopAll() finds them all.
   */
  async startAll(): Promise<void> {
    const starts = SERVICES.flatMap((service) =>
      Array.from({ length: this.settings.replicas }, () => this.startReplica(service, 120_000)),
    );
    const failed = (await Promise.allSettled(starts)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** See ClusterStack.rollOut. */
  async rollOut(service: ServiceName, onStep?: (step: ReplacementStep) => void, to?: ServiceBuild): Promise<void> {
    if (to) this.builds[service] = to;
    // Bounded: exactly the replicas that were live when the rollout began.
    for (const old of [...this.live[service]]) {
      const startedAt = Date.now();
      const fresh = await this.startReplica(service, 120_000);
      const readyAt = Date.now();
      const exited: Promise<void> = this.retire(old, 'graceful')
        .then((exitCode) => {
          const finishedAt = Date.now();
          onStep?.({
            service,
            replaced: this.name(old),
            by: this.name(fresh),
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
        .catch((err: unknown) => void this.retireFailures.push(err instanceof Error ? err : new Error(String(err))))
        .finally(() => this.retiring.delete(exited));
      this.retiring.add(exited);
    }
  }

  async retirements(): Promise<void> {
    while (this.retiring.size > 0) await Promise.all(this.retiring);
    const [failure] = this.retireFailures.splice(0);
    if (failure !== undefined) throw failure;
  }

  /** See ClusterStack.kill. */
  async kill(service: ServiceName): Promise<number> {
    const oldest = this.live[service][0];
    if (!oldest) return 0;
    const { haproxy } = this.settings;
    const servers = backendsOf(service).map((b) => `${b}/s${oldest.slot}`);
    const before = await haproxy.sessions();
    await this.retire(oldest, 'kill');
    // HAProxy goes on giving the dead port requests until its health checks take it out (CHECK: about 1.5 s): those
    // refused a connection it sends to another server (`wredis`), and any other that fails there is the kill's cost
    // too. So the second read waits for the checks: what it held at the kill, and what it was given until they took
    // it out, less what HAProxy sent elsewhere. (The request log cannot count them: a request in flight on a
    // kept-alive connection when the replica dies fails with HAProxy closing its client's connection, no answer and
    // no line in the log.)
    const after = await waitFor(
      `${service}#${oldest.generation} out of the load balancer's rotation`,
      async () => {
        const stats = await haproxy.sessions();
        return servers.every((s) => !stats.get(s)?.status.startsWith('UP')) && stats;
      },
      { deadlineMs: 15_000, intervalMs: 100 },
    );
    const given = (s: string) => (after.get(s)?.total ?? 0) - (before.get(s)?.total ?? 0);
    const sentElsewhere = (s: string) => (after.get(s)?.redispatched ?? 0) - (before.get(s)?.redispatched ?? 0);
    return servers.reduce((sum, s) => sum + (before.get(s)?.current ?? 0) + given(s) - sentElsewhere(s), 0);
  }

  async restart(service: ServiceName, deadlineMs = 120_000): Promise<void> {
    for (let i = this.live[service].length; i < this.settings.replicas; i++)
      await this.startReplica(service, deadlineMs);
    for (const gone of this.dead.filter((r) => r.service === service)) {
      this.dead.splice(this.dead.indexOf(gone), 1);
      await this.release(gone);
    }
  }

  async notReady(): Promise<ServiceName[]> {
    const result: ServiceName[] = [];
    for (const service of SERVICES) {
      const states = await Promise.all(this.live[service].map((r) => this.ready(r.port).catch(() => false)));
      if (states.length < this.settings.replicas || states.some((s) => !s)) result.push(service);
    }
    return result;
  }

  /**
   * Every replica stopped, the replaced ones' stops awaited first. All at once: each waits out its drain delay
   * (HEALTH_DRAIN_MS) before it closes, and one service after another took four of them (13 s of every cluster
   * test's teardown) for an order nothing depends on once the stack is being torn down.
   */
  async stopAll(): Promise<void> {
    await Promise.all(this.retiring);
    const replicas = SERVICES.flatMap((service) => this.live[service].splice(0));
    await Promise.all(replicas.map((r) => r.proc.stop(8_000).catch(() => {})));
  }

  private name(r: Replica): string {
    return `${r.service}#${r.generation}(:${r.port}${r.build === this.settings.current ? '' : `, ${r.build.version}`})`;
  }

  private async ready(port: number): Promise<boolean> {
    const response = await request(`http://127.0.0.1:${port}/readyz`, { headersTimeout: 5_000, bodyTimeout: 5_000 });
    await response.body.text();
    return response.statusCode === 200;
  }

  private async inRotation(replica: Replica): Promise<boolean> {
    const statuses = await this.settings.haproxy.statuses();
    return backendsOf(replica.service).every((b) => statuses.get(`${b}/s${replica.slot}`) === 'UP');
  }

  /**
   * A new replica on new ports in a free slot; resolves once it answers /readyz 200 and HAProxy has it UP. A port
   * found free can be taken before the replica binds it (the kernel hands the same range out as the local port of
   * outgoing connections, and the suite runs files side by side): a replica that exits with EADDRINUSE is started
   * again on fresh ports, twice at most.
   */
  private async startReplica(service: ServiceName, deadlineMs: number): Promise<Replica> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.startReplicaOnce(service, deadlineMs);
      } catch (err) {
        const portTaken =
          err instanceof ReplicaExitedError &&
          (await readFile(err.logFile, 'utf8').catch(() => '')).includes('EADDRINUSE');
        if (!portTaken || attempt >= 3) throw err;
      }
    }
  }

  /** Finds a free slot and takes it in the same turn: replicas started together must never share one. */
  private async takeSlot(service: ServiceName): Promise<number> {
    const taken = this.takenSlots[service];
    for (;;) {
      const slot = Array.from({ length: this.slotCount }, (_, i) => i + 1).find((s) => !taken.has(s));
      if (slot !== undefined) {
        taken.add(slot);
        return slot;
      }
      // Every slot is held by a live replica or by a replaced one still exiting: the next exit frees one.
      if (this.retiring.size === 0) throw new Error(`no free load balancer slot for ${service}`);
      await Promise.race(this.retiring);
    }
  }

  private async startReplicaOnce(service: ServiceName, deadlineMs: number): Promise<Replica> {
    const slot = await this.takeSlot(service);
    const generation = ++this.generations[service];
    const [port, adminPort] = (await freePorts(service === 'gateway' ? 2 : 1)) as [number, number | undefined];
    const build = this.builds[service];
    const logFile = join(this.settings.logDir, `${service}-${generation}.log`);
    const proc = spawnService({
      service,
      env: this.replicaEnv(service, build, port, adminPort),
      logFile,
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
      await this.intoRotation(replica, deadlineMs, logFile);
    } catch (err) {
      await proc.stop(5_000).catch(() => {});
      for (const backend of backendsOf(service))
        await this.settings.haproxy.setState(backend, slot, 'maint').catch(() => {});
      this.takenSlots[service].delete(slot);
      throw err;
    }
    this.live[service].push(replica);
    return replica;
  }

  private replicaEnv(
    service: ServiceName,
    build: ServiceBuild,
    port: number,
    adminPort: number | undefined,
  ): Record<string, string> {
    const { env } = this.settings;
    const serviceEnv: Record<string, string> = {
      ...env[envKey(service)],
      PORT: String(port),
      ...(adminPort !== undefined && { ADMIN_PORT: String(adminPort) }),
      // Readiness turns 503 first; the listener stays open until HAProxy's checks have taken it out.
      SHUTDOWN_DRAIN_MS: String(HEALTH_DRAIN_MS),
      // D43: each gateway replica enforces its share of the per-key limit.
      ...(service === 'gateway' && { GATEWAY_REPLICAS: String(this.settings.replicas) }),
    };
    return build === this.settings.current
      ? { ...serviceEnv, ...this.settings.currentEnv }
      : { ...serviceEnv, ...releaseOnlyEnv(env, envKey(service)) };
  }

  /** Ready on its own ports, then assigned to its slot in each of its backends and UP there. */
  private async intoRotation(replica: Replica, deadlineMs: number, logFile: string): Promise<void> {
    const { service, generation, slot, port, adminPort, proc } = replica;
    await waitFor(`${service}#${generation} /readyz`, () => this.ready(port), {
      deadlineMs,
      intervalMs: 200,
      abortIf: () => {
        if (proc.exitInfo()) throw new ReplicaExitedError(`${service}#${generation}`, logFile);
      },
    });
    for (const backend of backendsOf(service))
      await this.settings.haproxy.assign(
        backend,
        slot,
        listenerOfBackend(backend) === 'gateway-admin' ? (adminPort as number) : port,
      );
    await waitFor(`${service}#${generation} in the load balancer's rotation`, () => this.inRotation(replica), {
      deadlineMs: 15_000,
      intervalMs: 100,
    });
  }

  /** Out of rotation, then SIGTERM and wait: what Kubernetes does to a pod it removes (endpoints, then the signal). */
  private async retire(replica: Replica, how: 'graceful' | 'kill'): Promise<number | null> {
    this.live[replica.service] = this.live[replica.service].filter((r) => r !== replica);
    if (how === 'graceful') {
      for (const backend of backendsOf(replica.service))
        await this.settings.haproxy.setState(backend, replica.slot, 'drain');
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
      this.dead.push(replica);
      return replica.proc.exitInfo()?.code ?? null;
    }
    await this.release(replica);
    return replica.proc.exitInfo()?.code ?? null;
  }

  private async release(replica: Replica): Promise<void> {
    for (const backend of backendsOf(replica.service))
      await this.settings.haproxy.setState(backend, replica.slot, 'maint');
    this.takenSlots[replica.service].delete(replica.slot);
  }
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
