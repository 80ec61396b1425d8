// The rollout ledger's first attempts: each event's first delivery as its receiver saw it, split where the
// dispatcher recorded it, and the rows that compare the rollout's latencies with the steady state's.
import type { ReceivedRequest } from '@checkout/testing';
import { header, type LedgerRow } from './ledger-types';

/** A step as these rows name it: what it was, and when it ran. */
type Step = { what: string; start: number; end: number };

/** p-th percentile (0-100) of values, nearest rank; undefined for none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** An event's first delivery attempt as its receiver saw it: when the event was made, how long after it, its type. */
export interface FirstAttempt {
  createdAt: number;
  latencyMs: number;
  type: string;
  /**
   * How long after it was made the dispatcher recorded the event (its stored `recordedAt`): the outbox's send, Kafka
   * and the dispatcher's consumer; the rest of `latencyMs` is the dispatcher's own (storing, scheduling, the POST).
   */
  recordedAfterMs?: number;
}

/**
 * Each event's first attempt as its receiver saw it: the earliest request carrying its event id, against the
 * event's createdAt (in the signed body), with when the dispatcher recorded it where `recordedAt` (event id →
 * epoch ms) knows. Its latency is what the rollout ledger compares between steady state and
 * rollout: sessions' events at their callback URLs and orders' and refunds' at the merchants' endpoints.
 */
export function firstAttempts(
  received: readonly ReceivedRequest[],
  recordedAt: ReadonlyMap<string, number> = new Map(),
): FirstAttempt[] {
  const first = new Map<string, { createdAt: number; receivedAt: number; type: string }>();
  for (const request of received) {
    const eventId = header(request.headers, 'x-service-event-id');
    if (!eventId) continue;
    let body: { createdAt?: string; event?: string };
    try {
      body = JSON.parse(request.body) as typeof body;
    } catch {
      continue;
    }
    const createdAt = Date.parse(body.createdAt ?? '');
    if (!Number.isFinite(createdAt)) continue;
    const at = request.receivedAt.getTime();
    const seen = first.get(eventId);
    if (!seen || at < seen.receivedAt) first.set(eventId, { createdAt, receivedAt: at, type: body.event ?? '?' });
  }
  return [...first].map(([eventId, f]) => {
    const recorded = recordedAt.get(eventId);
    return {
      createdAt: f.createdAt,
      latencyMs: f.receivedAt - f.createdAt,
      type: f.type,
      ...(recorded !== undefined && { recordedAfterMs: recorded - f.createdAt }),
    };
  });
}

/** A slow attempt as the ledger names it: its latency, its type, where it came, and when it was recorded if known. */
function describeAttempt({ latencyMs, type, recordedAfterMs }: FirstAttempt, where: string): string {
  const recorded = recordedAfterMs === undefined ? '' : `; recorded at +${Math.round(recordedAfterMs)} ms`;
  return `${Math.round(latencyMs)} ms (${type}, ${where}${recorded})`;
}

/**
 * The three slowest first attempts of events created during the rollout, each with the step under way when its
 * event was created (or the one it followed): with a few hundred events the p99 is about the third slowest, so these
 * say which step a miss of the target came from.
 */
function slowestWithSteps(duringAttempts: readonly FirstAttempt[], steps: readonly Step[]): string {
  const slowest = [...duringAttempts].sort((a, b) => b.latencyMs - a.latencyMs).slice(0, 3);
  if (slowest.length === 0) return 'none';
  return slowest
    .map((attempt) => {
      const step = steps.find((s) => attempt.createdAt >= s.start && attempt.createdAt <= s.end);
      const before = [...steps].reverse().find((s) => s.end < attempt.createdAt);
      return describeAttempt(
        attempt,
        step ? `during ${step.what}` : before ? `after ${before.what}` : 'before the first step',
      );
    })
    .join('; ');
}

/** The three slowest first attempts outside the rollout, each with how long before or after it its event came. */
function slowestSteady(steadyAttempts: readonly FirstAttempt[], from: number, to: number): string {
  const slowest = [...steadyAttempts].sort((a, b) => b.latencyMs - a.latencyMs).slice(0, 3);
  if (slowest.length === 0) return 'none';
  return slowest
    .map((attempt) =>
      describeAttempt(
        attempt,
        attempt.createdAt < from
          ? `${((from - attempt.createdAt) / 1000).toFixed(1)} s before the rollout`
          : `${((attempt.createdAt - to) / 1000).toFixed(1)} s after it`,
      ),
    )
    .join('; ');
}

/**
 * The load's first seconds are left out of the steady state: the services' first requests compile their code and
 * open their connections (the slowest "steady" events of every run were the load's first second), which is a cold
 * start, not the state a rollout is compared with.
 */
export const WARM_UP_MS = 5_000;

/**
 * The rollout target (docs/operations.md): first-attempt webhook p99 during the rollout at most 3× the steady
 * state's.
 */
const ROLLOUT_P99_FACTOR = 3;

const fmt = (v: number | undefined) => (v === undefined ? 'n/a' : `${Math.round(v)} ms`);

/** The first attempts' p50 and p99 of each part of their time: Kafka's (made → recorded), the dispatcher's. */
function splitOf(attempts: readonly FirstAttempt[]): { kafka: string; dispatcher: string } {
  const kafka = attempts.flatMap((a) => (a.recordedAfterMs === undefined ? [] : [a.recordedAfterMs]));
  const dispatcher = attempts.flatMap((a) =>
    a.recordedAfterMs === undefined ? [] : [a.latencyMs - a.recordedAfterMs],
  );
  return {
    kafka: `${fmt(percentile(kafka, 50))} / ${fmt(percentile(kafka, 99))}`,
    dispatcher: `${fmt(percentile(dispatcher, 50))} / ${fmt(percentile(dispatcher, 99))}`,
  };
}

/**
 * First-attempt latencies: the load's first seconds, the steady state and the rollout window [from, to], each
 * split where the dispatcher recorded the event, the slowest of each, and the check of the rollout's p99 against
 * the steady one.
 */
export function latencyRows(
  firstAttempts: readonly FirstAttempt[],
  steps: readonly Step[],
  { from, to, warm }: { from: number; to: number; warm: number },
): LedgerRow[] {
  const duringAttempts = firstAttempts.filter((a) => a.createdAt >= from && a.createdAt <= to);
  const during = duringAttempts.map((a) => a.latencyMs);
  const warmingUp = firstAttempts.filter((a) => a.createdAt < Math.min(warm, from)).map((a) => a.latencyMs);
  const steadyAttempts = firstAttempts.filter((a) => (a.createdAt >= warm && a.createdAt < from) || a.createdAt > to);
  const steady = steadyAttempts.map((a) => a.latencyMs);
  const p99Steady = percentile(steady, 99);
  const p99During = percentile(during, 99);
  const [steadySplit, duringSplit] = [splitOf(steadyAttempts), splitOf(duringAttempts)];
  const ratio = p99Steady !== undefined && p99During !== undefined && p99Steady > 0 ? p99During / p99Steady : undefined;
  return [
    {
      label: `first-attempt webhook p50 / max, the load's first ${WARM_UP_MS / 1000} s (not steady state)`,
      value: `${fmt(percentile(warmingUp, 50))} / ${fmt(percentile(warmingUp, 100))} (${warmingUp.length} events)`,
      check: false,
    },
    {
      label: 'first-attempt webhook p50 / p99, steady state',
      value: `${fmt(percentile(steady, 50))} / ${fmt(p99Steady)} (${steady.length} events)`,
      check: false,
    },
    {
      label: 'first-attempt webhook p50 / p99, during the rollout',
      value: `${fmt(percentile(during, 50))} / ${fmt(p99During)} (${during.length} events)`,
      check: false,
    },
    {
      label: '  made → recorded by the dispatcher, p50 / p99: steady; rollout',
      value: `${steadySplit.kafka}; ${duringSplit.kafka}`,
      check: false,
    },
    {
      label: '  recorded → received, p50 / p99: steady; rollout',
      value: `${steadySplit.dispatcher}; ${duringSplit.dispatcher}`,
      check: false,
    },
    {
      label: 'slowest first attempts during the rollout, and the step each event came in',
      value: slowestWithSteps(duringAttempts, steps),
      check: false,
    },
    {
      label: 'slowest first attempts in steady state, and when their event came',
      value: slowestSteady(steadyAttempts, from, to),
      check: false,
    },
    {
      label: `first-attempt p99 during the rollout above ${ROLLOUT_P99_FACTOR}× steady (ratio ${ratio === undefined ? 'n/a' : ratio.toFixed(2)})`,
      value: ratio !== undefined && ratio > ROLLOUT_P99_FACTOR ? 1 : 0,
      check: true,
      timing: true,
    },
  ];
}
