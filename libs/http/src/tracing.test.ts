import Router from '@koa/router';
import Koa from 'koa';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSpans } from '@checkout/telemetry/testing';
import { listen, type RunningServer } from './server';
import { traceRequests } from './tracing';

// A session id opens its hosted page (the capability a customer's link carries): it must not reach the trace
// store, where everyone who can read traces would hold every open checkout. Order and event ids stay: they open
// nothing without a key.

const SESSION_ID = 'cs_test_Cap4b1l1tyT0kenAbCdEf12';
const ORDER_ID = 'ord_test_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2';
let collector: ReturnType<typeof collectSpans>;
let server: RunningServer;

beforeAll(async () => {
  collector = collectSpans('http-test');
  const app = new Koa();
  app.use(traceRequests({ continueIncoming: false }));
  const router = new Router();
  for (const path of [
    '/checkout/:sessionId',
    '/checkout/:sessionId/pay',
    '/v0/checkout/sessions/:sessionId',
    '/internal/sessions/:sessionId/order',
    '/v0/orders/:orderId',
  ])
    router.all(path, (ctx) => {
      ctx.body = { ok: true };
    });
  app.use(router.routes());
  server = await listen(app, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server?.close(1_000);
  await collector?.shutdown();
});

describe('server spans and session ids', () => {
  it('When a route names a session, then no exported span carries its id, in any attribute or name; an order id is still there', async () => {
    for (const [method, path] of [
      ['GET', `/checkout/${SESSION_ID}`],
      ['POST', `/checkout/${SESSION_ID}/pay`],
      ['GET', `/v0/checkout/sessions/${SESSION_ID}`],
      ['PUT', `/internal/sessions/${SESSION_ID}/order`],
      ['GET', `/v0/orders/${ORDER_ID}`],
    ] as const) {
      const response = await request(`${server.url}${path}`, { method });
      await response.body.dump();
      expect(response.statusCode, path).toBe(200);
    }
    await collector.flush();
    const spans = collector.spans();
    expect(spans.map((span) => span.name).sort()).toEqual(
      [
        'GET /checkout/:sessionId',
        'POST /checkout/:sessionId/pay',
        'GET /v0/checkout/sessions/:sessionId',
        'PUT /internal/sessions/:sessionId/order',
        'GET /v0/orders/:orderId',
      ].sort(),
    );
    // It was exported as checkout.session_id on every span of these routes.
    expect(JSON.stringify(spans)).not.toContain(SESSION_ID);
    for (const span of spans) expect(Object.keys(span.attributes)).not.toContain('checkout.session_id');
    expect(spans.find((span) => span.name === 'GET /v0/orders/:orderId')?.attributes).toMatchObject({
      'checkout.order_id': ORDER_ID,
    });
  });
});
