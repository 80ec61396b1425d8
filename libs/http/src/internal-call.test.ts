import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_ROUTES } from '@checkout/contracts';
import { DependencyUnavailableError, DomainError } from '@checkout/errors';
import { callInternal, streamInternal } from './internal-call';
import { InternalClient } from './internal-client';

// The typed call of a route of INTERNAL_ROUTES: the path from the route, the answer parsed with its schema, a
// refusal as the callee's DomainError, anything else a 503. A loopback server answers what each test sets.

let server: Server;
let client: InternalClient;
let answer: { status: number; body: unknown } = { status: 200, body: {} };
let seen = '';
let seenHeaders: Record<string, string | string[] | undefined> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen = `${req.method} ${req.url}`;
    seenHeaders = req.headers;
    req.resume();
    if (typeof answer.body === 'string' && answer.status === 200)
      return void res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' }).end(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new InternalClient({ service: 'orders', baseUrl, internalToken: 'token-0123456789', timeoutMs: 2_000 });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

const scope = { organizationId: 'org_1', mode: 'test' } as const;
const locations = (query: Record<string, string | undefined> = {}) =>
  callInternal(client, INTERNAL_ROUTES.listLocations, { scope, query });

describe('callInternal', () => {
  it('When the callee answers, then the path is the route with its parameters and query, and the answer parsed', async () => {
    answer = { status: 200, body: { locations: [{ id: 'loc_1', name: 'Shop', createdAt: 'x', extra: 1 }] } };
    const { value } = await locations({ a: 'b c', empty: '', none: undefined });
    expect(seen).toBe('GET /internal/admin/locations?a=b+c');
    expect(value.locations).toEqual([{ id: 'loc_1', name: 'Shop', createdAt: 'x' }]);
    answer = { status: 204, body: '' };
    await callInternal(client, INTERNAL_ROUTES.cancelOrder, { scope, params: { orderId: 'ord 1/x' } }).catch(() => {});
    expect(seen).toBe('POST /internal/orders/ord%201%2Fx/cancel');
  });

  it('When the callee refuses with its envelope, then the DomainError it named, with its details', async () => {
    answer = { status: 404, body: { code: 'ORDER_NOT_FOUND', message: 'No such order.', details: [] } };
    const error = await locations().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'ORDER_NOT_FOUND', message: 'No such order.', details: [] });
  });

  it.each([
    ['a refusal without an envelope', 400, { oops: true }],
    ['a refusal with a code no table has', 409, { code: 'NO_SUCH_CODE', message: 'x' }],
    ['an answer its schema does not read', 200, { locations: 'none' }],
    ['a redirect', 302, {}],
    ['a 5xx', 500, {}],
  ])('When the callee answers %s, then it is unavailable (503)', async (_what, status, body) => {
    answer = { status, body };
    await expect(locations()).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});

describe('streamInternal (a file, D52)', () => {
  const file = () =>
    streamInternal(client, INTERNAL_ROUTES.reportFile, {
      scope,
      requestId: 'req_1',
      params: { reportId: 'rpt_test_1' },
      accept: 'text/csv',
    });

  it('When the callee answers a file, then its body comes as a stream, asked for with the scope', async () => {
    answer = { status: 200, body: 'id,type\r\ntxn_test_1,payment\r\n' };
    const { headers, body } = await file();
    expect(headers['content-type']).toBe('text/csv; charset=utf-8');
    let text = '';
    for await (const chunk of body) text += String(chunk);
    expect(text).toBe('id,type\r\ntxn_test_1,payment\r\n');
    expect(seen).toBe('GET /internal/reports/rpt_test_1/file');
    expect(seenHeaders).toMatchObject({ 'x-organization-id': 'org_1', 'x-mode': 'test', accept: 'text/csv' });
  });

  it('When the callee refuses, then the DomainError it named; a 5xx, then a 503', async () => {
    answer = { status: 409, body: { code: 'REPORT_NOT_READY', message: 'Not yet.' } };
    await expect(file()).rejects.toMatchObject({ code: 'REPORT_NOT_READY', message: 'Not yet.' });
    answer = { status: 500, body: {} };
    await expect(file()).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
