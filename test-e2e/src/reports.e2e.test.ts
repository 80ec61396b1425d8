import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import type { Report } from '@checkout/contracts';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput } from './support/factories';

// D52's report runs end to end through the gateway, all four services on the real engines: a report run with an
// Idempotency-Key (a retry is the same report), its CSV streamed through the gateway as text/csv, another
// organization's key meeting 404, and report.succeeded recorded in the events API and delivered to the webhook
// endpoint subscribed to it. The books as a whole (lines, the balance, a report while lines arrive) are in
// books.e2e.test.ts.

let stack: InProcessStack;
let test: Api;
let other: Api;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({
    extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '1000000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' } },
  });
  const org = await stack.admin.createOrganizationWithKeys(`Reports ${randomBytes(3).toString('hex')}`);
  test = new Api(stack.gatewayUrl, org.testKey);
  other = new Api(stack.gatewayUrl, (await stack.admin.createOrganizationWithKeys('Other reports org')).testKey);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

describe('reports through the gateway (D52)', () => {
  it('When a report of orders runs, then a retry with its key is the same report, its file is streamed as text/csv, and report.succeeded reaches the events API and the subscribed endpoint', async () => {
    const path = `/reports-${randomBytes(3).toString('hex')}`;
    const endpoint = await test.post('/v0/webhook_endpoints', {
      url: receiver.url(path),
      enabledEvents: ['report.succeeded'],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const order = await test.post(
      '/v0/orders',
      buildOrderInput({ externalId: `@risky-${randomBytes(3).toString('hex')}` }),
    );
    expect(order.status).toBe(201);
    const now = Date.now();
    const window = {
      type: 'orders',
      createdAfter: new Date(now - 3_600_000).toISOString(),
      createdBefore: new Date(now + 3_600_000).toISOString(),
    };
    // asOf is the run's start less its settle margin (2 s): the order must be older than that to be in the file.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const key = { 'Idempotency-Key': `report-${randomBytes(6).toString('hex')}` };
    const created = await test.post('/v0/reports', window, key);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.report).toMatchObject({ type: 'orders', status: 'pending' });
    const id = created.body.report.id as string;
    expect((await test.post('/v0/reports', window, key)).body.report.id).toBe(id);

    const report = await eventually(
      async () => {
        const read = (await test.get(`/v0/reports/${id}`)).body.report as Report;
        return read.status === 'succeeded' ? read : undefined;
      },
      { deadlineMs: 30_000, description: 'the report to succeed' },
    );
    expect(report).toMatchObject({ rows: 1, fileUrl: `/v0/reports/${id}/file` });
    const file = await request(`${stack.gatewayUrl}${report.fileUrl}`, {
      headers: { authorization: `Bearer ${test.key}` },
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = (await file.body.text()).split('\r\n');
    expect(lines[0]).toBe('id,externalId,status,paymentStatus,currency,total,paid,refunded,createdAt,updatedAt');
    expect(lines[1]).toContain(`${order.body.order.id},'${order.body.order.externalId}`);

    expect((await other.get(`/v0/reports/${id}`)).status).toBe(404);
    expect((await other.get(`/v0/reports/${id}/file`)).body).toMatchObject({ code: 'REPORT_NOT_FOUND' });
    expect((await test.get('/v0/reports/rpt_nope/file')).body).toMatchObject({ code: 'INVALID_REPORT_ID' });

    const recorded = await eventually(
      async () => {
        const events = (await test.get('/v0/events?type=report.succeeded&limit=100')).body.events as Array<{
          id: string;
          report: Report;
        }>;
        return events.find((e) => e.report.id === id);
      },
      { deadlineMs: 30_000, description: 'report.succeeded in the events API' },
    );
    expect(recorded.report).toEqual(report);
    const delivered = await receiver.nextDelivery({ path, timeoutMs: 30_000 });
    expect(delivered.headers['x-service-event-type']).toBe('report.succeeded');
    expect(JSON.parse(delivered.body)).toMatchObject({ id: recorded.id, event: 'report.succeeded', report: { id } });
  }, 90_000);
});
