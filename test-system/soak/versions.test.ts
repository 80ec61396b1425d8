import { describe, expect, it } from 'vitest';
import { SERVICES } from '../../scripts/lib/process-stack';
import { lastExitOf, rolloutPhases } from './rollout';
import { VersionTimeline, handoffRow, httpContractRows, routeOf } from './versions';
import type { LoggedRequest } from '../../scripts/lib/haproxy';

// the mixed-version soak's rows say, per contract, how much talk crossed versions; they are computed
// from when each replica served on which build, and (internal HTTP) from the load balancer's request log.

const OLD = '1.0.0';
const NEW = '1.0.0+0123456789ab';
const at = (s: number) => 1_000_000 + s * 1000;

// Two replicas of each service on the release, then orders replaced one at a time: the first new replica serves
// from 12 s (its old one leaves at 20 s), the second from 25 s (the last old one leaves at 30 s).
const timeline = new VersionTimeline(
  NEW,
  (['orders', 'sessions', 'webhook-dispatcher', 'gateway'] as const).map((service) => ({
    service,
    version: OLD,
    replicas: 2,
    at: at(0),
  })),
  [
    ...VersionTimeline.stepChanges({
      service: 'orders',
      readyAt: at(12),
      finishedAt: at(20),
      fromVersion: OLD,
      toVersion: NEW,
    }),
    ...VersionTimeline.stepChanges({
      service: 'orders',
      readyAt: at(25),
      finishedAt: at(30),
      fromVersion: OLD,
      toVersion: NEW,
    }),
  ],
);

describe('VersionTimeline', () => {
  it('When a service is replaced one replica at a time, then it is old before, mixed while both serve, new after', () => {
    expect(timeline.sideAt('orders', at(5))).toBe('old');
    expect(timeline.sideAt('orders', at(15))).toBe('mixed');
    expect([...timeline.versionsAt('orders', at(22))]).toEqual([
      [OLD, 1],
      [NEW, 1],
    ]);
    expect(timeline.sideAt('orders', at(22))).toBe('mixed');
    expect([...timeline.versionsAt('orders', at(31))]).toEqual([[NEW, 2]]);
    expect(timeline.sideAt('orders', at(31))).toBe('new');
    expect(timeline.sideAt('sessions', at(31))).toBe('old');
  });

  it('When a build sent no version (a release older than the header), then it is the old side', () => {
    expect(timeline.sideOf(undefined)).toBe('old');
    expect(timeline.sideOf(NEW)).toBe('new');
  });
});

describe('the contract rows', () => {
  const request = (over: Partial<LoggedRequest>): LoggedRequest => ({
    startedAt: at(35),
    endedAt: at(35) + 20,
    frontend: 'orders.from.sessions',
    backend: 'orders.from.sessions',
    server: 's1',
    status: 200,
    method: 'POST',
    path: '/internal/orders/ord_test_abcdefghijklmnopqrstuvwx/payments',
    callerVersion: undefined,
    calleeVersion: NEW,
    ...over,
  });

  it('When an old caller meets a new callee and the other way round, then each direction is counted with statuses and routes, and only failures across versions are violations', () => {
    const rows = httpContractRows(timeline, [
      request({}),
      request({ status: 201, method: 'POST', path: '/internal/orders' }),
      request({
        startedAt: at(5),
        frontend: 'orders.from.gateway',
        callerVersion: NEW,
        calleeVersion: undefined,
        status: 503,
      }),
      // Both old: a failure, but not one between versions.
      request({ startedAt: at(5), callerVersion: undefined, calleeVersion: undefined, status: 500 }),
    ]);
    const sessionsToOrders = rows.find((r) => r.label.includes('sessions → orders'));
    expect(sessionsToOrders?.value).toBe(
      'old → new 2 (200: 1, 201: 1); new → old 0; same version 1; 2 routes across versions: POST /internal/orders, POST /internal/orders/:id/payments',
    );
    expect(rows.find((r) => r.label.includes('gateway → orders'))?.value).toMatch(
      /^old → new 0; new → old 1 \(503: 1\)/,
    );
    const failures = rows.find((r) => r.check);
    expect(failures?.value).toBe(1);
    expect(failures?.label).toContain('gateway → orders POST');
    expect(rows.filter((r) => r.label.endsWith('(internal HTTP)'))).toHaveLength(5);
  });

  it('When a callee gave no answer, then its side is the one its service ran then', () => {
    const rows = httpContractRows(timeline, [
      request({
        startedAt: at(5),
        callerVersion: NEW,
        calleeVersion: undefined,
        status: 503,
        frontend: 'orders.from.gateway',
      }),
      request({
        startedAt: at(15),
        callerVersion: NEW,
        calleeVersion: undefined,
        status: 503,
        frontend: 'orders.from.gateway',
      }),
    ]);
    // At 5 s orders was all old: new → old, a failure; at 15 s it was mixed: not counted across.
    expect(rows.find((r) => r.label.includes('gateway → orders'))?.value).toMatch(
      /new → old 1 \(503: 1\); same version 1/,
    );
  });

  it('When facts pass from a producer to a consumer, then each is counted by the side each ran when it acted', () => {
    const row = handoffRow(timeline, 'orders.events', 'orders', 'sessions', [
      { producedAt: at(35), consumedAt: at(35) },
      { producedAt: at(5), consumedAt: at(5) },
      { producedAt: at(15), consumedAt: at(15) },
    ]);
    expect(row.value).toBe('old → new 0; new → old 1; while one side was mixed 1; same version 1');
  });

  it('names routes without their ids', () => {
    expect(routeOf('GET', '/internal/events/evt_live_0123456789abcdefABCDEF01/redeliver')).toBe(
      'GET /internal/events/:id/redeliver',
    );
    expect(routeOf('GET', '/checkout/cs_test_abcdefghijklmnopqrstuvwx/state')).toBe('GET /checkout/:id/state');
  });
});

describe('rolloutPhases', () => {
  it('When both orders are asked, then callees first, a rollback in reverse, callers first, then a same-version leg', () => {
    expect(rolloutPhases('both').map((p) => [p.to, p.services.join(' ')])).toEqual([
      ['current', 'orders sessions webhook-dispatcher gateway'],
      ['from', 'gateway webhook-dispatcher sessions orders'],
      ['current', 'gateway webhook-dispatcher sessions orders'],
      ['current', SERVICES.join(' ')],
    ]);
    expect(rolloutPhases('orders-first')).toHaveLength(1);
    expect(rolloutPhases('gateway-first')[0]?.services[0]).toBe('gateway');
  });
});

describe('lastExitOf', () => {
  const step = (end: number, fromVersion: string) => ({
    what: `${fromVersion} replaced`,
    start: end - 5_000,
    end,
    detail: '',
    failed: false,
    replacement: { service: 'orders' as const, readyAt: end - 3_000, finishedAt: end, fromVersion, toVersion: NEW },
  });

  it('When replicas of a release were replaced several times, then the last such step ends its presence; broker restarts do not count', () => {
    const broker = { what: 'broker 1 restart', start: 90_000, end: 99_000, detail: '', failed: false };
    expect(lastExitOf(OLD, [step(10_000, OLD), step(50_000, NEW), step(70_000, OLD), step(80_000, NEW), broker])).toBe(
      70_000,
    );
  });

  it('When no replica of the release was replaced, then it never left', () => {
    expect(lastExitOf(OLD, [step(10_000, NEW)])).toBe(Number.POSITIVE_INFINITY);
  });
});
