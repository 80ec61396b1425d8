import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INTERNAL_API_HEADERS } from '@checkout/contracts';
import { DependencyUnavailableError } from '@checkout/errors';
import { InternalClient } from './internal-client';

// The one internal client every service uses. A scripted loopback server answers in turn.

let server: Server;
let baseUrl: string;
/** Answers in turn: a status, or a status with headers. */
let script: Array<number | { status: number; headers: Record<string, string> }> = [];
const HANG = 0;
const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const next = script.shift() ?? 200;
    const { status, headers } = typeof next === 'number' ? { status: next, headers: {} } : next;
    if (status === HANG) return; // never answers: the caller's timeout ends it
    res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify({ status }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  script = [];
  seen.length = 0;
});

const client = () =>
  new InternalClient({
    service: 'orders',
    baseUrl,
    internalToken: 'internal-token-0123456789',
    timeoutMs: 2_000,
    retries: 2,
  });

describe('InternalClient', () => {
  it('sends the internal token, the scope and the request id under the base path', async () => {
    const answer = await client().json({
      method: 'GET',
      path: '/internal/orders/ord_test_1',
      scope: { organizationId: 'org_1', mode: 'test' },
      requestId: 'req_1',
    });
    expect(answer).toMatchObject({ status: 200, body: { status: 200 } });
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/base/internal/orders/ord_test_1' });
    expect(seen[0]?.headers).toMatchObject({
      'x-internal-token': 'internal-token-0123456789',
      'x-organization-id': 'org_1',
      'x-mode': 'test',
      'x-request-id': 'req_1',
    });
  });

  it('retries an idempotent call after a 503, and not a call that is not idempotent', async () => {
    script = [503, 200];
    expect((await client().json({ method: 'GET', path: '/x' })).status).toBe(200);
    expect(seen).toHaveLength(2);

    seen.length = 0;
    script = [503, 200];
    expect((await client().json({ method: 'PATCH', path: '/x', body: {} })).status).toBe(503);
    expect(seen).toHaveLength(1);

    seen.length = 0;
    script = [503, 503, 503, 200];
    expect((await client().json({ method: 'POST', path: '/x', body: {}, idempotent: true })).status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('When a 503 says the database stopped the work at its deadline, then the call is not asked again (D51)', async () => {
    // A search stopped by its maxTimeMS, asked again twice, held the database three times over and answered after
    // the gateway's own timeout (the abuse bench on FerretDB: 14.6 s for one request).
    script = [{ status: 503, headers: { [INTERNAL_API_HEADERS.deadlineExceeded]: 'true' } }, 200];
    expect((await client().json({ method: 'GET', path: '/x' })).status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it('does not ask again a read that timed out (the callee may still be doing it), and asks again a keyed write', async () => {
    script = [HANG, 200];
    const quick = new InternalClient({
      service: 'orders',
      baseUrl,
      internalToken: 'internal-token-0123456789',
      timeoutMs: 300,
      retries: 2,
    });
    await expect(quick.json({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(seen).toHaveLength(1);

    seen.length = 0;
    script = [HANG, 201];
    const created = await quick.json({ method: 'POST', path: '/x', body: {}, idempotent: true });
    expect(created.status).toBe(201);
    expect(seen).toHaveLength(2);
    await quick.close();
  });

  it('turns an internal 401 and an unreachable service into DependencyUnavailableError (answered 503)', async () => {
    script = [401];
    await expect(client().json({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(DependencyUnavailableError);
    const unreachable = new InternalClient({
      service: 'orders',
      baseUrl: 'http://127.0.0.1:1',
      internalToken: 'internal-token-0123456789',
      timeoutMs: 500,
      retries: 1,
    });
    await expect(unreachable.json({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
