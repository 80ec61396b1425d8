// The mixed-version rollout soak's own ledger rows: for every contract between services, how much of
// the run an old and a new party talked across it, and whether any of that talk failed. What each side ran at
// each moment comes from the rollout's steps (VersionTimeline); who called whom at which version, for internal
// HTTP, from the load balancer's request log, where each caller has a frontend of its own and both sides name
// their build in x-internal-version (a release older than that header sends none: it counts as the old side).
import type { LoggedRequest } from '../../scripts/lib/haproxy';
import { frontendOf, INTERNAL_CALLS } from '../../scripts/lib/cluster-calls';
import type { ServiceName } from '../../scripts/lib/process-stack';
import type { LedgerRow } from './ledger-types';

export type Side = 'old' | 'new';

/** When a replica of a service joined or left the rotation, and on which build. */
export interface VersionChange {
  at: number;
  service: ServiceName;
  version: string;
  delta: 1 | -1;
}

/** What each service ran over the run: its replicas' builds at any moment. */
export class VersionTimeline {
  private readonly changes: VersionChange[];

  constructor(
    /** The build the new code runs as (the stack's current build); any other version is the old side. */
    private readonly currentVersion: string,
    initial: ReadonlyArray<{ service: ServiceName; version: string; replicas: number; at: number }>,
    changes: readonly VersionChange[] = [],
  ) {
    this.changes = [
      ...initial.map((i) => ({ at: i.at, service: i.service, version: i.version, delta: i.replicas as 1 | -1 })),
      ...changes,
    ].sort((a, b) => a.at - b.at);
  }

  /** A replacement step: the new replica serves from `readyAt`, the old one until `finishedAt`. */
  static stepChanges(step: {
    service: ServiceName;
    readyAt: number;
    finishedAt: number;
    fromVersion: string;
    toVersion: string;
  }): VersionChange[] {
    return [
      { at: step.readyAt, service: step.service, version: step.toVersion, delta: 1 },
      { at: step.finishedAt, service: step.service, version: step.fromVersion, delta: -1 },
    ];
  }

  sideOf(version: string | undefined): Side {
    return version === this.currentVersion ? 'new' : 'old';
  }

  /** The builds serving for `service` at `at`, with their replica counts. */
  versionsAt(service: ServiceName, at: number): Map<string, number> {
    const live = new Map<string, number>();
    for (const c of this.changes) {
      if (c.at > at) break;
      if (c.service !== service) continue;
      const n = (live.get(c.version) ?? 0) + c.delta;
      if (n > 0) live.set(c.version, n);
      else live.delete(c.version);
    }
    return live;
  }

  /** 'old' or 'new' when every replica of `service` ran that side at `at`; 'mixed' during its own rollout. */
  sideAt(service: ServiceName, at: number): Side | 'mixed' {
    const sides = new Set([...this.versionsAt(service, at).keys()].map((v) => this.sideOf(v)));
    if (sides.size !== 1) return 'mixed';
    return [...sides][0] as Side;
  }
}

/** A path with its ids as `:id`, so that requests to one route count together. */
export function routeOf(method: string, path: string): string {
  const template = path
    .split('?')[0]
    ?.replace(/\/[a-z]+_(test|live)_[0-9A-Za-z]+/g, '/:id')
    .replace(/\/(k|cs|ord)_[0-9A-Za-z_-]{8,}/g, '/:id');
  return `${method} ${template}`;
}

interface Tally {
  count: number;
  statuses: Map<number, number>;
  routes: Set<string>;
}
const tally = (): Tally => ({ count: 0, statuses: new Map(), routes: new Set() });
const describeTally = (t: Tally): string =>
  `${t.count}${
    t.count > 0
      ? ` (${[...t.statuses]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}: ${n}`)
          .join(', ')})`
      : ''
  }`;

/**
 * One row per internal HTTP contract (INTERNAL_CALLS): requests an old caller sent a new callee and a new caller
 * an old one, with their statuses and the routes they covered, then a check: answers ≥ 500 (or none) between
 * versions. Requests between two parties of one side are counted but say nothing about compatibility.
 */
export function httpContractRows(timeline: VersionTimeline, logged: readonly LoggedRequest[]): LedgerRow[] {
  const rows: LedgerRow[] = [];
  let failedAcross = 0;
  const failures: string[] = [];
  for (const call of INTERNAL_CALLS) {
    const frontend = frontendOf(call);
    const across = { oldToNew: tally(), newToOld: tally() };
    let same = 0;
    for (const r of logged) {
      if (r.frontend !== frontend) continue;
      const caller = timeline.sideOf(r.callerVersion);
      // No answer at all (HAProxy's own 503, a reset): the callee is whichever side the server ran then.
      const callee =
        r.calleeVersion !== undefined ? timeline.sideOf(r.calleeVersion) : timeline.sideAt(call.callee, r.startedAt);
      if (callee === 'mixed' || caller === callee) {
        same += 1;
        continue;
      }
      const t = caller === 'old' ? across.oldToNew : across.newToOld;
      t.count += 1;
      t.statuses.set(r.status, (t.statuses.get(r.status) ?? 0) + 1);
      t.routes.add(routeOf(r.method, r.path));
      if (r.status >= 500 || r.status < 100) {
        failedAcross += 1;
        if (failures.length < 5) failures.push(`${call.caller} → ${call.callee} ${r.method} ${r.path} ${r.status}`);
      }
    }
    const routes = new Set([...across.oldToNew.routes, ...across.newToOld.routes]);
    rows.push({
      label: `  ${call.caller} → ${call.callee} (internal HTTP)`,
      value: `old → new ${describeTally(across.oldToNew)}; new → old ${describeTally(across.newToOld)}; same version ${same}; ${routes.size} routes across versions: ${[...routes].sort().join(', ') || 'none'}`,
      check: false,
    });
  }
  rows.push({
    label: `internal answers ≥ 500 or none between an old and a new party${failures.length ? ` (${failures.join('; ')})` : ''}`,
    value: failedAcross,
    check: true,
  });
  return rows;
}

/** A producer's fact and its consumer's handling of it, each at the time it happened. */
export interface Handoff {
  producedAt: number;
  consumedAt: number;
}

/**
 * Counts hand-overs between two services by the side each ran when it acted: `producer` and `consumer` all
 * old, all new, or mixed (its own rollout under way).
 */
export function handoffRow(
  timeline: VersionTimeline,
  label: string,
  producer: ServiceName,
  consumer: ServiceName,
  handoffs: readonly Handoff[],
): LedgerRow {
  let oldToNew = 0;
  let newToOld = 0;
  let duringOwnRollout = 0;
  let same = 0;
  for (const h of handoffs) {
    const p = timeline.sideAt(producer, h.producedAt);
    const c = timeline.sideAt(consumer, h.consumedAt);
    if (p === 'mixed' || c === 'mixed') duringOwnRollout += 1;
    else if (p === c) same += 1;
    else if (p === 'old') oldToNew += 1;
    else newToOld += 1;
  }
  return {
    label: `  ${label}`,
    value: `old → new ${oldToNew}; new → old ${newToOld}; while one side was mixed ${duringOwnRollout}; same version ${same}`,
    check: false,
  };
}
