import { describe, expect, it } from 'vitest';
import { HEALTH_DRAIN_MS, renderHaproxyConfig } from './haproxy';

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
