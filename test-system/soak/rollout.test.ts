import { describe, expect, it } from 'vitest';
import type { ReceivedRequest } from '@checkout/testing';
import { firstAttempts, percentile } from './first-attempts';
import { rolloutRows, timeWithoutOwner, type GroupSample } from './rollout';

const sample = (at: number, state: string | undefined): GroupSample => ({ at, states: new Map([['g', state]]) });

describe('timeWithoutOwner', () => {
  it('When a group is seen rebalancing between samples, then that time inside the step counts, and unanswered samples count as neither', () => {
    const samples = [
      sample(0, 'Stable'),
      sample(1_000, 'PreparingRebalance'),
      sample(1_500, 'CompletingRebalance'),
      sample(2_000, 'Stable'),
      sample(3_000, undefined),
      sample(4_000, 'Stable'),
    ];
    expect(timeWithoutOwner(samples, 'g', 0, 5_000)).toBe(1_000);
    expect(timeWithoutOwner(samples, 'g', 1_250, 5_000)).toBe(750);
    expect(timeWithoutOwner(samples, 'other', 0, 5_000)).toBe(0);
  });
});

describe('percentile', () => {
  it('When asked for p50 and p99, then it answers by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([], 99)).toBeUndefined();
  });
});

/** `length` first attempts alike. */
const many = (length: number, createdAt: number, latencyMs: number, type = 'order.paid') =>
  Array.from({ length }, () => ({ createdAt, latencyMs, type }));
/** The value of the row whose label starts with `prefix`. */
const valueOf = (rows: ReturnType<typeof rolloutRows>, prefix: string) =>
  rows.find((r) => r.label.startsWith(prefix))?.value;

describe('rolloutRows', () => {
  const steps = [{ what: 'orders#1 → orders#3', start: 10_000, end: 20_000, detail: 'd', failed: false }];
  /** The rows of a run whose load began at 0. */
  const rowsOf = (firstAttempts: Parameters<typeof rolloutRows>[0]['firstAttempts'], ofSteps = steps) =>
    rolloutRows({ steps: ofSteps, samples: [], groups: [{ id: 'g', label: 'g' }], firstAttempts, loadStartedAt: 0 });
  it('When the first-attempt p99 during the rollout is above 3× the steady one, then that row is a violation', () => {
    const firstAttempts = [...many(50, 6_000, 100), ...many(50, 15_000, 400)];
    const rows = rowsOf(firstAttempts);
    expect(valueOf(rows, 'first-attempt p99 during the rollout above')).toBe(1);
    expect(valueOf(rows, 'rollout steps that failed')).toBe(0);
  });

  it('When it stays within 3×, then no violation', () => {
    const firstAttempts = [...many(50, 6_000, 100), ...many(50, 15_000, 300)];
    const rows = rowsOf(firstAttempts);
    expect(rows.filter((r) => r.check && r.value !== 0)).toEqual([]);
  });

  it("When the load's first seconds are slow, then they are printed apart and the steady state is the rest", () => {
    const firstAttempts = [...many(5, 500, 2_000, 'order.created'), ...many(50, 6_000, 100), ...many(50, 15_000, 400)];
    const rows = rowsOf(firstAttempts);
    expect(valueOf(rows, "first-attempt webhook p50 / max, the load's first")).toBe('2000 ms / 2000 ms (5 events)');
    expect(valueOf(rows, 'first-attempt webhook p50 / p99, steady')).toBe('100 ms / 100 ms (50 events)');
    expect(valueOf(rows, 'first-attempt p99 during the rollout above')).toBe(1);
  });

  it('When replacements overlap and finish out of order, then the rollout runs from the earliest start to the latest end', () => {
    // The second replacement started before the first one's old replica had exited, and finished first.
    const overlapping = [
      { what: 'orders#2 → orders#4', start: 14_000, end: 18_000, detail: 'd', failed: false },
      { what: 'orders#1 → orders#3', start: 10_000, end: 20_000, detail: 'd', failed: false },
    ];
    const firstAttempts = [...many(50, 6_000, 100), ...many(50, 11_000, 400), ...many(50, 19_000, 400)];
    const rows = rowsOf(firstAttempts, overlapping);
    expect(valueOf(rows, 'first-attempt webhook p50 / p99, during')).toBe('400 ms / 400 ms (100 events)');
    expect(valueOf(rows, 'first-attempt p99 during the rollout above')).toBe(1);
  });

  it('When the dispatcher recorded the events, then each phase splits its p50 and p99 there', () => {
    const attempts = [
      ...Array.from({ length: 50 }, () => ({ createdAt: 6_000, latencyMs: 100, type: 't', recordedAfterMs: 40 })),
      ...Array.from({ length: 50 }, () => ({ createdAt: 15_000, latencyMs: 400, type: 't', recordedAfterMs: 350 })),
      // Not recorded (a receiver saw it, the store did not say when): left out of the split only.
      { createdAt: 15_000, latencyMs: 400, type: 't' },
    ];
    const rows = rowsOf(attempts);
    expect(valueOf(rows, '  made → recorded')).toBe('40 ms / 40 ms; 350 ms / 350 ms');
    expect(valueOf(rows, '  recorded → received')).toBe('60 ms / 60 ms; 50 ms / 50 ms');
    expect(valueOf(rows, 'first-attempt webhook p50 / p99, during')).toBe('400 ms / 400 ms (51 events)');
  });

  it('When events are slow during a step, then the slowest three are named with their type and the step their event came in', () => {
    const twoSteps = [...steps, { what: 'broker 1 restart', start: 30_000, end: 40_000, detail: 'd', failed: false }];
    const firstAttempts = [
      { createdAt: 12_000, latencyMs: 2_000, type: 'order.paid', recordedAfterMs: 1_870 },
      { createdAt: 25_000, latencyMs: 900, type: 'checkout.session.completed' },
      { createdAt: 35_000, latencyMs: 1_500, type: 'refund.created' },
      { createdAt: 36_000, latencyMs: 10, type: 'order.created' },
      { createdAt: 6_000, latencyMs: 5_000, type: 'order.created' },
      { createdAt: 1_000, latencyMs: 9_000, type: 'order.created' },
    ];
    const rows = rowsOf(firstAttempts, twoSteps);
    expect(valueOf(rows, 'slowest first attempts in steady')).toBe('5000 ms (order.created, 4.0 s before the rollout)');
    expect(valueOf(rows, 'slowest first attempts during')).toBe(
      '2000 ms (order.paid, during orders#1 → orders#3; recorded at +1870 ms); 1500 ms (refund.created, during broker 1 restart); ' +
        '900 ms (checkout.session.completed, after orders#1 → orders#3)',
    );
  });
});

describe('firstAttempts', () => {
  const request = (eventId: string, body: string, receivedAt: number): ReceivedRequest => ({
    method: 'POST',
    path: '/m0',
    headers: { 'x-service-event-id': eventId },
    body,
    receivedAt: new Date(receivedAt),
  });
  const created = (type: string) => JSON.stringify({ event: type, createdAt: new Date(1_000).toISOString() });

  it("When an event was attempted more than once, or a body is not an event's, then its earliest attempt counts and the rest is left out", () => {
    const attempts = firstAttempts([
      request('evt_1', created('order.paid'), 1_900),
      request('evt_1', created('order.paid'), 1_300),
      request('evt_2', 'not json', 1_100),
      request('evt_3', JSON.stringify({ event: 'refund.created' }), 1_100),
    ]);
    expect(attempts).toEqual([{ createdAt: 1_000, latencyMs: 300, type: 'order.paid' }]);
  });

  it('When the dispatcher recorded an event, then its attempt says how long after it was made', () => {
    const attempts = firstAttempts(
      [request('evt_1', created('order.paid'), 1_400), request('evt_2', created('order.created'), 1_050)],
      new Map([['evt_1', 1_320]]),
    );
    expect(attempts).toEqual([
      { createdAt: 1_000, latencyMs: 400, type: 'order.paid', recordedAfterMs: 320 },
      { createdAt: 1_000, latencyMs: 50, type: 'order.created' },
    ]);
  });
});
