import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Registry } from 'prom-client';
import Koa from 'koa';
import { operationalEndpoints, READINESS_CACHE_MS } from './health';
import { listen } from './server';

// The second audit: /healthz and /readyz answer before every limit (a probe must not be rate limited), so a
// /readyz that ran its checks each time let anyone who reaches the port make a database command per request.

describe('/healthz and /readyz', () => {
  it('When /readyz is asked many times at once and in a row, then the checks run once per READINESS_CACHE_MS, and /healthz runs none', async () => {
    let checks = 0;
    let clock = 10_000;
    let failing = false;
    const app = new Koa();
    app.use(
      operationalEndpoints({
        checks: [
          {
            name: 'mongodb',
            check: async () => {
              checks += 1;
              if (failing) throw new Error('down');
            },
          },
        ],
        registry: new Registry(),
        exposure: 'public',
        now: () => clock,
      }),
    );
    const server = await listen(app, { host: '127.0.0.1', port: 0 });
    const status = async (path: string) => {
      const response = await request(`${server.url}${path}`);
      await response.body.dump();
      return response.statusCode;
    };
    try {
      const statuses = await Promise.all(Array.from({ length: 20 }, () => status('/readyz')));
      for (let i = 0; i < 20; i += 1) statuses.push(await status('/readyz'));
      for (let i = 0; i < 20; i += 1) statuses.push(await status('/healthz'));
      expect(new Set(statuses)).toEqual(new Set([200]));
      expect(checks).toBe(1);
      // Past the cache, the next request checks again, and sees a dependency that went down.
      failing = true;
      clock += READINESS_CACHE_MS;
      expect(await status('/readyz')).toBe(503);
      expect(await status('/readyz')).toBe(503);
      expect(checks).toBe(2);
    } finally {
      await server.close(1_000);
    }
  });

  it.each(['/healthz', '/readyz', '/metrics'])(
    'When %s is asked with HEAD, then the status and headers are those of GET, without a body (it was 404)',
    async (path) => {
      let failing = false;
      const app = new Koa();
      app.use(
        operationalEndpoints({
          checks: [{ name: 'mongodb', check: async () => void (failing && (await Promise.reject(new Error('down')))) }],
          registry: new Registry(),
          now: () => (failing ? 10_000 : 0),
        }),
      );
      const server = await listen(app, { host: '127.0.0.1', port: 0 });
      const answer = async (method: 'GET' | 'HEAD') => {
        const response = await request(`${server.url}${path}`, { method });
        const body = await response.body.text();
        // undici asks to close after a HEAD (its interop rule), so the connection headers differ by the client's doing.
        const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers } = response.headers;
        return { status: response.statusCode, headers, body };
      };
      try {
        for (const down of [false, true]) {
          failing = down;
          const get = await answer('GET');
          const head = await answer('HEAD');
          expect(head.body).toBe('');
          expect(get.body.length).toBeGreaterThan(0);
          expect({ status: head.status, headers: head.headers }).toEqual({ status: get.status, headers: get.headers });
        }
      } finally {
        await server.close(1_000);
      }
    },
  );
});
