import type { Readable } from 'node:stream';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable as ReadableStream } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createLogger } from '@checkout/logger';
import { createBaseApp, mountRouters } from '@checkout/http';
import type { PassThrough } from '../domain/owners';
import { passThroughRoutes } from './checkout-page.routes';

// The hosted page and the processor's notifications pass through to their owners with the gateway's internal
// credential: only the headers on the allow-list go with them, whatever else the client sends.

const seen: Record<string, string | string[] | undefined>[] = [];
const owner: PassThrough = {
  passThrough: async (call: { headers: Record<string, string | string[] | undefined>; body?: Readable }) => {
    seen.push(call.headers);
    call.body?.resume();
    return { status: 200, headers: { 'content-type': 'text/html' }, body: ReadableStream.from(['ok']) };
  },
};

let server: Server;
let base: string;

beforeAll(async () => {
  const { app } = createBaseApp({
    service: 'gateway',
    logger: createLogger('gateway', { level: 'silent' }),
    readiness: [],
  });
  mountRouters(app, [passThroughRoutes({ sessions: owner, orders: owner })]);
  const handle = app.callback();
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the pass-through (hosted page, processor notifications)', () => {
  it('When a client sends internal headers, credentials and forwarding headers, then only the allow-listed ones reach the owner', async () => {
    const sent = {
      accept: 'text/html',
      'content-type': 'application/x-www-form-urlencoded',
      cookie: 'csrf=abc',
      'sec-fetch-site': 'same-origin',
      'x-processor-signature': 't=1,v1=00',
      'user-agent': 'browser',
      authorization: 'Bearer sk_test_someone',
      'x-idempotency-record': 'forged',
      'x-idempotency-since': '2020-01-01T00:00:00.000Z',
      'x-checkout-settings': 'forged',
      'x-checkout-session-id': 'cs_test_forged',
      'x-order-revision': '99',
      'x-list-without-total': '1',
      'x-forwarded-for': '203.0.113.9',
      'x-organization-id': 'org_forged',
      'x-internal-token': 'forged',
      'x-anything-new': 'forged',
    };
    for (const path of ['/checkout/cs_test_abc', '/v0/processor/notifications', '/v0/processor/refund_notifications']) {
      const response = await request(`${base}${path}`, { method: 'POST', headers: sent, body: 'a=1' });
      await response.body.dump();
      expect(response.statusCode).toBe(200);
    }
    expect(seen).toHaveLength(3);
    for (const headers of seen)
      expect(Object.keys(headers).sort()).toEqual(
        ['accept', 'content-type', 'cookie', 'sec-fetch-site', 'user-agent', 'x-processor-signature'].sort(),
      );
  });
});
