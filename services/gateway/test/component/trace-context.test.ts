import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { collectSpans } from '@checkout/telemetry/testing';
import { eventually } from '@checkout/testing';
import { createLogger } from '@checkout/logger';
import { buildApp, type GatewayApp } from '../../src/app';
import { parseConfig } from '../../src/config';
import { gatewayOnlyEnvironment } from './harness';

// Trace context from outside (docs/decisions.md, "Traces"): the public listener starts a new trace for every request
// and ignores a client's traceparent, so a caller can neither join our traces nor force them sampled; the operators'
// listener continues its caller's. Spans in memory; the gateway's real listeners on the real database.

const TRACE_ID = 'aa'.repeat(16);
const PARENT_ID = 'bb'.repeat(8);
const traceparent = `00-${TRACE_ID}-${PARENT_ID}-01`;

let collector: ReturnType<typeof collectSpans>;
let app: GatewayApp;
let urls: { url: string; adminUrl: string };
let adminToken: string;

beforeAll(async () => {
  collector = collectSpans('gateway');
  const env = gatewayOnlyEnvironment('gwtrace');
  adminToken = env.adminToken;
  app = buildApp(
    parseConfig({ ...env.gateway, PORT: '0', ADMIN_PORT: '0' }),
    createLogger('gateway', { level: 'silent' }),
  );
  urls = await app.start();
});

afterAll(async () => {
  await app?.stop();
  await collector?.shutdown();
});

async function get(url: string, headers: Record<string, string>): Promise<string> {
  const response = await request(url, { headers: { traceparent, ...headers } });
  await response.body.dump();
  return String(response.headers['x-request-id']);
}

const serverSpanOf = async (requestId: string) =>
  eventually(
    async () => collector.spans().find((s) => s.kind === 'server' && s.attributes['checkout.request_id'] === requestId),
    { deadlineMs: 5_000, description: `the server span of ${requestId}` },
  );

describe('a client-supplied traceparent', () => {
  it('When a client sends one to the public API, then its request starts a trace of its own, with no parent', async () => {
    const span = await serverSpanOf(await get(`${urls.url}/v0/openapi.json`, {}));
    expect(span.traceId).not.toBe(TRACE_ID);
    expect(span.parentSpanId).toBeUndefined();
  });

  it("When an operator's tool sends one to the operators' listener, then the request continues that trace", async () => {
    const span = await serverSpanOf(
      await get(`${urls.adminUrl}/admin/organizations`, { authorization: `Bearer ${adminToken}` }),
    );
    expect(span.traceId).toBe(TRACE_ID);
    expect(span.parentSpanId).toBe(PARENT_ID);
  });
});
