import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@checkout/logger';
import { allowedMethods, createBaseApp, mountRouters } from './app';

// D7: a known path with another method is 405 with `Allow`; OPTIONS answers `Allow` alone. The full
// fuzz run found `OPTIONS /v0/events/recover` listing GET, which belongs to `/v0/events/:eventId`.

describe('allowedMethods', () => {
  const router = new Router();
  router.get('/v0/events', () => {});
  router.get('/v0/events/:eventId', () => {});
  router.post('/v0/events/:eventId/redeliver', () => {});
  router.post('/v0/events/recover', () => {});

  it("When a literal route and a parameter route both match, then only the literal one's methods are allowed", () => {
    expect(allowedMethods([router], '/v0/events/recover')).toEqual(['POST', 'OPTIONS']);
  });

  it('When only the parameter route matches, then its methods are allowed', () => {
    expect(allowedMethods([router], '/v0/events/evt_test_1')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(allowedMethods([router], '/v0/events/evt_test_1/redeliver')).toEqual(['POST', 'OPTIONS']);
  });

  it('When nothing matches, then nothing is allowed (404, not 405)', () => {
    expect(allowedMethods([router], '/v0/nothing')).toEqual([]);
  });
});

// `router.use()` middleware layers match every path under the router's prefix with no parameters and no
// methods, so "the fewest parameters" picked them and left nothing allowed: the gateway's admin API answered 404
// instead of 405 on its parameterised routes. Only layers that answer methods count.
describe('allowedMethods with router.use() middleware', () => {
  const admin = new Router({ prefix: '/admin' });
  admin.use(async (_ctx, next) => next());
  admin.use(async (_ctx, next) => next());
  admin.get('/organizations', () => {});
  admin.post('/organizations', () => {});
  admin.get('/organizations/:organizationId/keys', () => {});
  admin.post('/organizations/:organizationId/keys', () => {});
  admin.post('/organizations/:organizationId/keys/:keyId/revoke', () => {});
  admin.patch('/organizations/:organizationId/payment-destinations/:destinationId', () => {});

  const events = new Router();
  events.use(async (_ctx, next) => next());
  events.get('/v0/events', () => {});
  events.get('/v0/events/:eventId', () => {});
  events.post('/v0/events/recover', () => {});

  it('When a parameterised route of a router with middleware matches, then its methods are allowed', () => {
    expect(allowedMethods([admin], '/admin/organizations/org_1/keys')).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
    expect(allowedMethods([admin], '/admin/organizations/org_1/keys/key_1/revoke')).toEqual(['POST', 'OPTIONS']);
    expect(allowedMethods([admin], '/admin/organizations/org_1/payment-destinations/pd_1')).toEqual([
      'PATCH',
      'OPTIONS',
    ]);
    expect(allowedMethods([admin], '/admin/organizations')).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
  });

  it('When only middleware matches a path, then nothing is allowed (404, not 405)', () => {
    expect(allowedMethods([admin], '/admin/nothing/here')).toEqual([]);
  });

  it('When OPTIONS asks about /v0/events/recover on a router with middleware, then POST and OPTIONS are listed', () => {
    expect(allowedMethods([events], '/v0/events/recover')).toEqual(['POST', 'OPTIONS']);
    expect(allowedMethods([events], '/v0/events/evt_test_1')).toEqual(['GET', 'HEAD', 'OPTIONS']);
  });

  describe('through mountRouters on the base app', () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      const { app } = createBaseApp({
        service: 'test',
        logger: createLogger('test', { level: 'silent' }),
        readiness: [],
      });
      mountRouters(app, [admin, events]);
      const handle = app.callback();
      server = createServer((req, res) => void handle(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it("When a wrong method hits a parameterised admin route, then 405 METHOD_NOT_ALLOWED with the route's Allow", async () => {
      const wrong = await fetch(`${base}/admin/organizations/org_1/keys`, { method: 'DELETE' });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
      expect(((await wrong.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
      const revoke = await fetch(`${base}/admin/organizations/org_1/keys/key_1/revoke`, { method: 'GET' });
      expect(revoke.status).toBe(405);
      expect(revoke.headers.get('allow')).toBe('POST, OPTIONS');
      await revoke.body?.cancel();
    });

    it('When OPTIONS /v0/events/recover, then 204 with Allow: POST, OPTIONS', async () => {
      const options = await fetch(`${base}/v0/events/recover`, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.get('allow')).toBe('POST, OPTIONS');
    });

    it('When the path is unknown under the admin prefix, then 404', async () => {
      const unknown = await fetch(`${base}/admin/nothing/here`, { method: 'DELETE' });
      expect(unknown.status).toBe(404);
      await unknown.body?.cancel();
    });
  });
});
