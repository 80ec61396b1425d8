import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import Router from '@koa/router';
import { buildInfo } from '@checkout/config';
import { createLogger } from '@checkout/logger';
import { createBaseApp } from './app';
import { internalAuth, internalTokenSha256 } from './internal-auth';
import { InternalClient } from './internal-client';
import { listen, type RunningServer } from './server';

// every service says which build it runs (/readyz, the checkout_build_info metric), and on internal
// calls each side tells the other its version (x-internal-version), so that old and new replicas running side by
// side in a rolling deploy can be told apart, and a provider counts which caller versions still call each route.

const BUILD = { version: '1.2.0+0123456789ab', commit: '0123456789abcdef0123456789abcdef01234567' };
const TOKEN = 'caller-token-7Hq2Lm9Xc4Vb8Nz1Kp6W';
const logger = createLogger('build-info-test', { level: 'silent' });

let server: RunningServer;
let publicServer: RunningServer;

beforeAll(async () => {
  const { app } = createBaseApp({ service: 'provider', logger, readiness: [], build: BUILD });
  const router = new Router({ prefix: '/internal' });
  router.use(
    internalAuth(
      [{ caller: 'sessions', tokenSha256: internalTokenSha256(TOKEN) }],
      [{ path: /^\/internal\//, callers: ['sessions'] }],
    ),
  );
  router.get('/things/:id', (ctx) => {
    ctx.body = { id: ctx.params.id };
  });
  app.use(router.routes());
  server = await listen(app, { host: '127.0.0.1', port: 0 });
  const { app: exposed } = createBaseApp({ service: 'edge', logger, readiness: [], build: BUILD, exposure: 'public' });
  publicServer = await listen(exposed, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server.close(1_000);
  await publicServer.close(1_000);
});

describe('the build a service reports', () => {
  it('When /readyz is asked on a full listener, then it names the version and commit; on a public one, it does not', async () => {
    const full = await request(`${server.url}/readyz`);
    expect(await full.body.json()).toEqual({ status: 'ready', checks: {}, ...BUILD });
    const exposed = await request(`${publicServer.url}/readyz`);
    expect(await exposed.body.json()).toEqual({ status: 'ready' });
  });

  it('When /metrics is scraped, then checkout_build_info carries the version and commit', async () => {
    const text = await (await request(`${server.url}/metrics`)).body.text();
    expect(text).toContain(
      `checkout_build_info{version="${BUILD.version}",commit="${BUILD.commit}",service="provider"} 1`,
    );
  });

  it("When an internal caller calls, then the answer carries the provider's version and the call is counted by the caller's", async () => {
    const client = new InternalClient({
      service: 'provider',
      baseUrl: server.url,
      internalToken: TOKEN,
      timeoutMs: 2_000,
    });
    const answer = await client.json({ method: 'GET', path: '/internal/things/a' });
    const refused = await request(`${server.url}/internal/things/b`, { headers: { 'x-internal-token': 'wrong' } });
    await refused.body.text();
    const older = await request(`${server.url}/internal/things/c`, { headers: { 'x-internal-token': TOKEN } });
    await older.body.text();
    await client.close();

    expect(answer.headers['x-internal-version']).toBe(BUILD.version);
    // Errors answer with it too: a 401 is still the provider talking.
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['x-internal-version']).toBe(BUILD.version);
    const text = await (await request(`${server.url}/metrics`)).body.text();
    const counted = (version: string) =>
      new RegExp(
        `internal_requests_total\\{method="GET",route="/internal/things/:id",caller="sessions",caller_version="${version.replace(/[.+]/g, '\\$&')}",service="provider"\\} 1`,
      );
    // This process's InternalClient sends this process's version; a caller that sends none is counted as `none`.
    expect(text).toMatch(counted(buildInfo().version));
    expect(text).toMatch(counted('none'));
  });

  it('When a request is passed through (the hosted page), then no x-internal-* header crosses either way', async () => {
    const upstream = createServer((req, res) => {
      res.setHeader('x-internal-version', '9.9.9');
      res.setHeader('x-seen', String(req.headers['x-internal-version'] === '6.6.6'));
      res.end('ok');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address() as { port: number };
    const client = new InternalClient({
      service: 'upstream',
      baseUrl: `http://127.0.0.1:${address.port}`,
      internalToken: TOKEN,
      timeoutMs: 2_000,
    });
    try {
      const answer = await client.raw({
        method: 'GET',
        path: '/checkout/x',
        requestId: 'r1',
        headers: { 'x-internal-version': '6.6.6' },
        body: Readable.from([]),
      });
      answer.body.resume();
      expect(answer.headers['x-internal-version']).toBeUndefined();
      // The browser's copy was dropped and this process's own version sent in its place.
      expect(answer.headers['x-seen']).toBe('false');
    } finally {
      await client.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});
