import { describe, expect, it } from 'vitest';
import { HEALTH_DRAIN_MS, parseRequestLog, parseServerStats, renderHaproxyConfig } from './haproxy';

describe('renderHaproxyConfig', () => {
  const config = renderHaproxyConfig({
    socket: '/tmp/run/haproxy.sock',
    backends: [
      { name: 'orders', port: 41000, slots: [41001, 41002, undefined] },
      { name: 'gateway-admin', port: 42000, slots: [42001] },
    ],
  });

  it('When rendered, then every frontend binds loopback only and each replica slot is a checked server, spare slots disabled', () => {
    expect(config).toContain('frontend orders\n  bind 127.0.0.1:41000\n  default_backend orders');
    expect(config).toContain(
      '  server s1 127.0.0.1:41001 check\n  server s2 127.0.0.1:41002 check\n  server s3 127.0.0.1:1 check disabled',
    );
    expect(config).toContain('frontend gateway-admin\n  bind 127.0.0.1:42000');
    expect(config.match(/bind (\S+)/g)?.every((b) => b.startsWith('bind 127.0.0.1:'))).toBe(true);
    expect(config).toContain('stats socket /tmp/run/haproxy.sock mode 600 level admin');
  });

  it('When two frontends were given one port, then HAProxy refuses to start instead of splitting the port between them', () => {
    expect(config).toMatch(/^global\n( {2}.*\n)* {2}noreuseport\n/);
  });

  it('When rendered, then readiness is checked on /readyz and only refused connections are retried (a received request is never replayed)', () => {
    expect(config).toContain('option httpchk GET /readyz');
    expect(config).toContain('http-check expect status 200');
    expect(config).toMatch(/retry-on conn-failure\n/);
    expect(config).not.toContain('empty-response');
  });

  it('When a replica turns unready, then the drain it waits outlasts the checks that take it out', () => {
    const inter = Number(/default-server inter (\d+) fastinter (\d+) .* fall (\d+)/.exec(config)?.[1]);
    const fast = Number(/fastinter (\d+)/.exec(config)?.[1]);
    const fall = Number(/fall (\d+)/.exec(config)?.[1]);
    expect(HEALTH_DRAIN_MS).toBeGreaterThan(inter + fast * fall);
  });
});

describe('the request log (which version called which)', () => {
  it('When on, then every frontend captures x-internal-version both ways and logs one parsable line per request', () => {
    const logged = renderHaproxyConfig({
      socket: '/tmp/run/haproxy.sock',
      backends: [{ name: 'orders.from.sessions', port: 41000, slots: [41001] }],
      requestLog: true,
    });
    expect(logged).toContain('log stdout format raw local0 info');
    expect(logged).toContain(
      'frontend orders.from.sessions\n  bind 127.0.0.1:41000\n  capture request header x-internal-version len 64\n  capture response header x-internal-version len 64',
    );
    const unlogged = renderHaproxyConfig({ socket: '/tmp/s', backends: [{ name: 'orders', port: 1, slots: [2] }] });
    expect(unlogged).not.toContain('capture');
    expect(unlogged).not.toContain('log stdout');
  });

  it('When read, then request lines give when the request began and ended, frontend, server, status, path and both versions (absent: undefined), other lines are skipped', () => {
    // The second is a keep-alive connection's next request: its stream was accepted when the first ended, and it
    // came 1,507 ms later; the third never got an answer (HAProxy logs -1 for what did not happen).
    const text = [
      '[NOTICE]   (1) : haproxy version is 2.6.12',
      'req 1795743932.478 0 11 orders.from.gateway orders.from.gateway s1 200 GET /internal/orders/ord_1 1.0.0 2.0.0+0123456789ab',
      'req 1795743932.489 1507 705 orders.from.sessions orders.from.sessions s2 503 POST /internal/orders/ord_1/payments - -',
      'req 1795743935.000 -1 -1 orders.from.sessions orders.from.sessions s2 -1 POST /internal/orders/ord_2/payments - -',
    ].join('\n');
    expect(parseRequestLog(text)).toEqual([
      {
        startedAt: 1795743932478,
        endedAt: 1795743932489,
        frontend: 'orders.from.gateway',
        backend: 'orders.from.gateway',
        server: 's1',
        status: 200,
        method: 'GET',
        path: '/internal/orders/ord_1',
        callerVersion: '1.0.0',
        calleeVersion: '2.0.0+0123456789ab',
      },
      {
        startedAt: 1795743933996,
        endedAt: 1795743934701,
        frontend: 'orders.from.sessions',
        backend: 'orders.from.sessions',
        server: 's2',
        status: 503,
        method: 'POST',
        path: '/internal/orders/ord_1/payments',
        callerVersion: undefined,
        calleeVersion: undefined,
      },
      {
        startedAt: 1795743935000,
        endedAt: 1795743935000,
        frontend: 'orders.from.sessions',
        backend: 'orders.from.sessions',
        server: 's2',
        status: -1,
        method: 'POST',
        path: '/internal/orders/ord_2/payments',
        callerVersion: undefined,
        calleeVersion: undefined,
      },
    ]);
  });
});

describe('parseServerStats', () => {
  it("When `show stat` is read, then each server's status, current, total and redispatched sessions come by backend/server, without the frontends' and backends' own rows", () => {
    const csv = [
      '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,wretr,wredis,status',
      'public,FRONTEND,,,4,9,,120,0,0,,,OPEN',
      'gateway,s1,0,0,3,7,,61,0,0,0,0,UP',
      'gateway,s2,0,0,0,5,,59,0,0,4,3,DOWN',
      'gateway,BACKEND,0,0,3,9,,120,0,0,4,3,UP',
    ].join('\n');
    expect([...parseServerStats(csv)]).toEqual([
      ['gateway/s1', { status: 'UP', current: 3, total: 61, redispatched: 0 }],
      ['gateway/s2', { status: 'DOWN', current: 0, total: 59, redispatched: 3 }],
    ]);
  });
});
