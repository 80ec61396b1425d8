import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createLogger } from '@checkout/logger';
import { createBaseApp } from './app';
import { listen } from './server';

// A replica that has begun its graceful stop tells the load balancer (/readyz 503) and every keep-alive
// client (Connection: close) before it stops listening, and still answers what it is sent meanwhile.

describe('a service that is draining', () => {
  it('When shutting down, then /readyz answers 503, routes still answer, and every answer says Connection: close', async () => {
    let shuttingDown = false;
    const { app } = createBaseApp({
      service: 'draining-test',
      logger: createLogger('draining-test', { level: 'silent' }),
      readiness: [],
      isShuttingDown: () => shuttingDown,
    });
    app.use(async (ctx, next) => {
      if (ctx.path === '/work') {
        ctx.body = { ok: true };
        return;
      }
      return next();
    });
    const server = await listen(app, { host: '127.0.0.1', port: 0 });
    try {
      const before = await request(`${server.url}/work`);
      await before.body.text();
      expect(before.statusCode).toBe(200);
      expect(before.headers.connection).not.toBe('close');

      shuttingDown = true;
      const ready = await request(`${server.url}/readyz`);
      expect(ready.statusCode).toBe(503);
      expect(await ready.body.json()).toMatchObject({ status: 'shutting_down' });
      expect(ready.headers.connection).toBe('close');
      const work = await request(`${server.url}/work`);
      expect(work.statusCode).toBe(200);
      expect(work.headers.connection).toBe('close');
      await work.body.text();
    } finally {
      await server.close(1_000);
    }
  });
});
