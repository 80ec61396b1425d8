import { eventually } from '@checkout/testing';
import type { Engines } from '@checkout/engines';
import { SERVICES, type ProcessStack, type ServiceName } from '../../scripts/lib/process-stack';
import { pause } from './client';

// The chaos loop of the soak. What counts as "inside an outage window" (documented in the README too): from the
// moment a service is SIGKILLed, or the broker or database is stopped, until every service answers /readyz with
// 200 again, plus OUTAGE_GRACE_MS. A request whose lifetime (sent → answered) overlaps a window may legitimately
// fail with a 5xx or no answer; anything else failing that way is a defect.

/** After everything reports ready again: connection pools re-dial, consumers rejoin their groups. */
const OUTAGE_GRACE_MS = 5_000;

type ChaosAction = { kind: 'kill-service' } | { kind: 'restart-broker' } | { kind: 'restart-database' };

export interface PlannedAction {
  atMs: number;
  action: ChaosAction;
}

export interface OutageWindow {
  what: string;
  start: number;
  /** When every service answered /readyz 200 again. */
  readyAt: number;
  /** readyAt + OUTAGE_GRACE_MS: the end of the window. */
  end: number;
  /** false when the stack was not ready again within RECOVERY_DEADLINE_MS (a violation; chaos stops there). */
  recovered: boolean;
}

/**
 * How long the stack may take to be ready again after one action: twice the slowest recovery seen on 2 loaded
 * cores (a sessions or dispatcher kill, ~30 s: its consumer group waits out the dead member's session).
 */
export const RECOVERY_DEADLINE_MS = 60_000;

/**
 * The schedule, relative to the start of the load: a service kill every `periodMs` starting at periodMs/2, and
 * one broker and one database restart (at 40 % and 75 % of the run) in between; nothing in the last 5 s so
 * the final action finishes while load still runs.
 */
export function planChaos(durationMs: number, periodMs = 20_000): PlannedAction[] {
  const plan: PlannedAction[] = [];
  for (let at = periodMs / 2; at <= durationMs - 5_000; at += periodMs)
    plan.push({ atMs: at, action: { kind: 'kill-service' } });
  plan.push({ atMs: Math.round(durationMs * 0.4), action: { kind: 'restart-broker' } });
  plan.push({ atMs: Math.round(durationMs * 0.75), action: { kind: 'restart-database' } });
  return plan.sort((a, b) => a.atMs - b.atMs);
}

/** Fisher–Yates with the given generator. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Whether [from, to] overlaps any outage window. */
export function insideOutage(windows: readonly OutageWindow[], from: number, to: number): boolean {
  return windows.some((w) => from <= w.end && to >= w.start);
}

/** A SIGKILL in a cluster: no outage window, only the requests the dead process held may fail. */
export interface ClusterKill {
  what: string;
  at: number;
  /** Requests the load balancer had in flight to the killed replica (0 for a broker: acks=all, min ISR 2). */
  held: number;
}

export interface ChaosOptions {
  stack: Pick<ProcessStack, 'restart' | 'notReady'> & { kill(service: ServiceName): Promise<unknown> };
  engines: Engines;
  /**
   * Replicas behind a load balancer and three brokers: a replica's SIGKILL and a broker's SIGKILL
   * (instead of its restart) open no outage window; each is reported here with what it held.
   */
  cluster?: { onKill(kill: ClusterKill): void };
  plan: readonly PlannedAction[];
  startedAt: number;
  random: () => number;
  log: (line: string) => void;
}

/**
 * Runs the plan in order, one action at a time: each waits for its scheduled time (or runs at once if the
 * previous one ran late), acts, then waits until the whole stack is ready again. Returns the windows.
 */
export async function runChaos(options: ChaosOptions): Promise<OutageWindow[]> {
  const { stack, engines, log } = options;
  const windows: OutageWindow[] = [];
  // Every service in turn, in a seeded order: a run with four kills or more kills each service once, so a
  // short soak cannot happen to spare the one whose recovery is broken.
  const victims = shuffled(SERVICES, options.random);
  let kills = 0;
  for (const { atMs, action } of options.plan) {
    const wait = options.startedAt + atMs - Date.now();
    if (wait > 0) await pause(wait);
    const start = Date.now();
    let what: string;
    if (action.kind === 'kill-service') {
      const service = victims[kills++ % victims.length] as ServiceName;
      what = `SIGKILL ${service}`;
      log(`chaos: ${what}`);
      const held = await stack.kill(service);
      if (options.cluster) options.cluster.onKill({ what, at: start, held: typeof held === 'number' ? held : 0 });
      await stack.restart(service, 120_000);
    } else if (action.kind === 'restart-broker' && options.cluster && engines.kafkaCluster) {
      const cluster = engines.kafkaCluster;
      const node = cluster.nodes[kills % cluster.nodes.length] as (typeof cluster.nodes)[number];
      what = `SIGKILL broker ${node.nodeId}`;
      log(`chaos: ${what}`);
      await node.kill();
      options.cluster.onKill({ what, at: start, held: 0 });
      await node.start();
      await eventually(async () => (await cluster.underReplicatedPartitions()) === 0, {
        deadlineMs: 90_000,
        intervalMs: 500,
        description: `every ISR whole after ${what}`,
      }).catch(() => {
        log(`chaos: ${what}: ISR not whole within 90 s`);
      });
    } else if (action.kind === 'restart-broker') {
      what = 'broker restart';
      log(`chaos: ${what}`);
      await engines.restartKafka();
    } else {
      what = 'database restart';
      log(`chaos: ${what}`);
      await engines.stopMongo();
      await engines.startMongo();
    }
    const recovered = await eventually(
      async () => {
        const waiting = await stack.notReady();
        if (waiting.length > 0) throw new Error(`not ready: ${waiting.join(', ')}`);
        return true;
      },
      { deadlineMs: RECOVERY_DEADLINE_MS, intervalMs: 250, description: `every service ready after ${what}` },
    ).catch((err: unknown) => {
      log(`chaos: ${err instanceof Error ? err.message : String(err)}; no further chaos`);
      return false;
    });
    const readyAt = Date.now();
    // In a cluster only the database (one instance) is an outage; a replica's or a broker's SIGKILL is not.
    if (!options.cluster || action.kind === 'restart-database' || !recovered)
      windows.push({ what, start, readyAt, end: readyAt + OUTAGE_GRACE_MS, recovered });
    if (!recovered) break;
    log(`chaos: ${what}: ready again after ${((readyAt - start) / 1000).toFixed(1)} s`);
  }
  return windows;
}
