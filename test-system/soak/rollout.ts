// The rollout soak's driver: under steady load, a rolling deploy of every service (each replica
// replaced one at a time, maxSurge 1, maxUnavailable 0), then a rolling restart of the three brokers (one at a
// time, waiting for every partition's ISR to be whole again in between). Nothing is ever down, so the ledger
// gets no outage windows: every 5xx and unanswered request counts. A mixed-version rollout runs its phases (below)
// before the brokers restart.
import { setTimeout as pause } from 'node:timers/promises';
import type { Engines } from '@checkout/engines';
import { consumerGroupStates, type KafkaClient } from '@checkout/kafka';
import { eventually } from '@checkout/testing';
import type { ReplacementStep } from '../../scripts/lib/cluster-replicas';
import type { ClusterStack } from '../../scripts/lib/cluster-stack';
import { SERVICES, type ServiceName } from '../../scripts/lib/process-stack';
import type { ServiceBuild } from '../../scripts/lib/releases';
import type { LedgerRow } from './ledger-types';
import { WARM_UP_MS, latencyRows, type FirstAttempt } from './first-attempts';

export interface RolloutStep {
  what: string;
  start: number;
  end: number;
  detail: string;
  /** A graceful stop that did not exit 0 (or a broker whose ISR did not recover). */
  failed: boolean;
  /** A replica's replacement (not a broker's restart): which service, and the builds on either side. */
  replacement?: Pick<ReplacementStep, 'service' | 'readyAt' | 'finishedAt' | 'fromVersion' | 'toVersion'>;
}

/**
 * The order services are upgraded in, from a release to the current code, each service's replicas
 * one at a time. `orders-first`: every callee before its callers (orders, sessions, the dispatcher, then the
 * gateway), so old callers meet new callees. `gateway-first`: the callers first, so new callers meet old callees.
 * `both`: orders first, a rollback to the release in the reverse order (what a team does when a deploy goes
 * wrong), then gateway first: every contract sees an old and a new party both ways round; last, every replica is
 * replaced by one of the same build, as in a same-version rolling deploy, so one run also proves that the current
 * code, alone in the cluster, hands over without losing or delaying anything (what `sweptEventRows` checks from the
 * moment the release's last replica exited).
 */
export const ROLLOUT_ORDERS = ['orders-first', 'gateway-first', 'both'] as const;
export type RolloutOrder = (typeof ROLLOUT_ORDERS)[number];

export interface RolloutPhase {
  name: string;
  services: readonly ServiceName[];
  /** 'current': to this checkout's build; 'from': back to the release the cluster started on. */
  to: 'current' | 'from';
}

const CALLEES_FIRST: readonly ServiceName[] = ['orders', 'sessions', 'webhook-dispatcher', 'gateway'];
const CALLERS_FIRST: readonly ServiceName[] = ['gateway', 'webhook-dispatcher', 'sessions', 'orders'];

export function rolloutPhases(order: RolloutOrder): RolloutPhase[] {
  const upgradeOrdersFirst: RolloutPhase = { name: 'upgrade, orders first', services: CALLEES_FIRST, to: 'current' };
  const upgradeGatewayFirst: RolloutPhase = { name: 'upgrade, gateway first', services: CALLERS_FIRST, to: 'current' };
  if (order === 'orders-first') return [upgradeOrdersFirst];
  if (order === 'gateway-first') return [upgradeGatewayFirst];
  return [
    upgradeOrdersFirst,
    { name: 'rollback, gateway first', services: [...CALLEES_FIRST].reverse(), to: 'from' },
    upgradeGatewayFirst,
    { name: 'same version', services: SERVICES, to: 'current' },
  ];
}

export interface GroupSample {
  at: number;
  /** group → state; undefined when describeGroups could not be answered (a coordinator moving). */
  states: Map<string, string | undefined>;
}

/** Samples every group's state every `intervalMs` until stop(); bounded by the run it watches. */
export function watchGroups(
  kafka: KafkaClient,
  groupIds: readonly string[],
  intervalMs = 250,
): { stop(): Promise<GroupSample[]> } {
  const samples: GroupSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const states = await consumerGroupStates(kafka, groupIds).then(
        (found) => new Map(groupIds.map((g) => [g, found.get(g)?.state])),
        () => new Map(groupIds.map((g) => [g, undefined])),
      );
      samples.push({ at, states });
      await pause(Math.max(0, intervalMs - (Date.now() - at)));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

/**
 * Milliseconds `group` spent without an owner for its partitions within [from, to]: the time between samples
 * that saw it in any state but Stable (a rebalance in progress, or no member). A sample that could not be
 * taken counts as neither.
 */
export function timeWithoutOwner(samples: readonly GroupSample[], group: string, from: number, to: number): number {
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i] as GroupSample;
    const next = samples[i + 1]?.at ?? sample.at;
    const start = Math.max(sample.at, from);
    const end = Math.min(next, to);
    const state = sample.states.get(group);
    if (end > start && state !== undefined && state !== 'Stable') total += end - start;
  }
  return total;
}

export interface RolloutOptions {
  stack: ClusterStack;
  engines: Engines;
  /** Steady state first: load without any change, the baseline the rollout's latencies are compared with. */
  steadyMs: number;
  startedAt: number;
  /**
   * A mixed-version rollout: the release the cluster started on and the phases to run; without it,
   * every replica is replaced by one of the same build, in SERVICES order.
   */
  mixed?: { from: ServiceBuild; phases: readonly RolloutPhase[] };
  log: (line: string) => void;
}

/** Replaces every replica of every service (per phase), then restarts each broker; returns each step. */
export async function runRollout(options: RolloutOptions): Promise<RolloutStep[]> {
  const { stack, engines, log } = options;
  const steps: RolloutStep[] = [];
  const wait = options.startedAt + options.steadyMs - Date.now();
  if (wait > 0) await pause(wait);
  const phases: readonly RolloutPhase[] = options.mixed?.phases ?? [
    { name: 'every replica replaced', services: SERVICES, to: 'current' },
  ];
  for (const phase of phases) {
    const to = options.mixed ? (phase.to === 'current' ? stack.current : options.mixed.from) : undefined;
    if (to) log(`rollout: ${phase.name}, to ${to.version}`);
    for (const service of phase.services) {
      log(`rollout: ${service} (${stack.live(service).length} replicas, one at a time)`);
      await stack.rollOut(
        service,
        (step) => {
          const detail = `new ready in ${(step.readyMs / 1000).toFixed(1)} s, old drained and exited in ${(step.stopMs / 1000).toFixed(1)} s (code ${step.exitCode})`;
          log(`rollout: ${step.replaced} → ${step.by}: ${detail}`);
          steps.push({
            what: `${options.mixed ? `${phase.name}: ` : ''}${step.replaced} → ${step.by}`,
            start: step.startedAt,
            end: step.finishedAt,
            detail,
            failed: step.exitCode !== 0,
            replacement: step,
          });
        },
        to,
      );
    }
  }
  // Every replaced replica has exited (its step is recorded) before the brokers restart.
  await stack.retirements();
  const cluster = engines.kafkaCluster;
  if (cluster) {
    for (const node of cluster.nodes) {
      const start = Date.now();
      log(`rollout: broker ${node.nodeId} (controlled shutdown, start, wait for every ISR)`);
      await node.stop();
      await node.start();
      const recovered = await eventually(async () => (await cluster.underReplicatedPartitions()) === 0, {
        deadlineMs: 90_000,
        intervalMs: 500,
        description: `ISR recovered after broker ${node.nodeId}`,
      }).then(
        () => true,
        () => false,
      );
      const end = Date.now();
      const detail = `back with every ISR whole in ${((end - start) / 1000).toFixed(1)} s${recovered ? '' : ' (ISR NOT recovered within 90 s)'}`;
      log(`rollout: broker ${node.nodeId}: ${detail}`);
      steps.push({ what: `broker ${node.nodeId} restart`, start, end, detail, failed: !recovered });
    }
  }
  return steps;
}

/**
 * When the last replica of `version` exited: the end of the last step that replaced one (never, if none did). From
 * then on the cluster runs other builds only.
 */
export function lastExitOf(version: string, steps: readonly RolloutStep[]): number {
  const exits = steps.filter((step) => step.replacement?.fromVersion === version).map((step) => step.end);
  return exits.length === 0 ? Number.POSITIVE_INFINITY : Math.max(...exits);
}

/**
 * The rollout's own ledger rows: each step with each group's time without an owner, the first-attempt webhook
 * latencies (steady state against rollout), and the checks: every old replica stopped cleanly, every ISR
 * recovered, the p99 within the factor.
 */
export function rolloutRows(input: {
  steps: readonly RolloutStep[];
  samples: readonly GroupSample[];
  groups: readonly { id: string; label: string }[];
  firstAttempts: readonly FirstAttempt[];
  /** When the load began: its first WARM_UP_MS are no one's steady state. */
  loadStartedAt: number;
}): LedgerRow[] {
  const rows: LedgerRow[] = [];
  const { steps, samples, groups } = input;
  rows.push({ label: 'rollout steps (replicas replaced, brokers restarted)', value: steps.length, check: false });
  for (const step of steps) {
    const unowned = groups
      .map((g) => `${g.label} ${(timeWithoutOwner(samples, g.id, step.start, step.end) / 1000).toFixed(1)} s`)
      .join(', ');
    rows.push({ label: `  ${step.what}`, value: `${step.detail}; without an owner: ${unowned}`, check: false });
  }
  rows.push({
    label: 'rollout steps that failed (old replica exit ≠ 0, ISR not recovered)',
    value: steps.filter((s) => s.failed).length,
    check: true,
  });
  // Replacements overlap (the next starts while the last one's old replica exits): the window is the earliest
  // start to the latest end, whatever order the steps finished in.
  const from = Math.min(...steps.map((s) => s.start));
  const to = Math.max(...steps.map((s) => s.end));
  rows.push(...latencyRows(input.firstAttempts, steps, { from, to, warm: input.loadStartedAt + WARM_UP_MS }));
  return rows;
}
