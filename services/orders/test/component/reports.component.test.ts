import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { request } from 'undici';
import { createKafka } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { GridFSBucket, MongoClient, type Db } from '@checkout/mongo';
import { ReportPublicEventMessage, TOPICS, derivedId, newId, topicName, type Mode } from '@checkout/contracts';
import { eventually, parseCsv } from '@checkout/testing';
import type { OrdersApp } from '../../src/app';
import type { BalanceTransactionDocument } from '../../src/store/balance-transaction.document';
import { CALLER_TOKENS, internalCaller, startOrdersApp } from './support';

// D52's report runs in the orders service alone, in-process on port 0 on the real engines: a report of each type
// (the CSV read back from GridFS through the file route), the Idempotency-Key, a report taken while lines are still
// being inserted (exactly the lines recorded up to asOf), the 30 days, a crashed runner's lease taken over, and the
// report.succeeded event on its topic. Lines are inserted straight into balance_transactions, as the ledger's
// consumer writes them.

const suffix = randomBytes(4).toString('hex');
const organization = `org_${suffix}`;
const name = `reports-${suffix}`;
const database = `orders_${name.replaceAll('-', '_')}`;
const test = internalCaller(() => baseUrl, { 'x-organization-id': organization, 'x-mode': 'test' });
let app: OrdersApp;
let baseUrl: string;
let mongo: MongoClient;
let db: Db;
const events: ReportPublicEventMessage[] = [];
const probes: Array<{ stop(): Promise<void> }> = [];

const WINDOW = { createdAfter: '2026-01-01T00:00:00.000Z', createdBefore: '2026-02-01T00:00:00.000Z' };
const at = (day: number, minute = 0) => new Date(Date.UTC(2026, 0, day, 0, minute));

/** A line as the ledger's consumer stores it. */
type Line = BalanceTransactionDocument;

function line(createdAt: Date, amount: number, options: { organizationId?: string; mode?: Mode } = {}): Line {
  const mode = options.mode ?? 'test';
  const sourceId = amount > 0 ? newId('pay', mode) : newId('re', mode);
  return {
    _id: derivedId('txn', mode, sourceId),
    organizationId: options.organizationId ?? organization,
    mode,
    type: amount > 0 ? 'payment' : 'refund',
    orderId: newId('ord', mode),
    sourceId,
    amount,
    currency: 'EUR',
    createdAt,
    recordedAt: new Date(),
    counted: false,
  };
}

async function runReport(body: unknown, headers: Record<string, string> = {}) {
  const created = await test('POST', '/internal/reports', body, { headers });
  expect(created.status).toBe(202);
  const id = created.body.report.id as string;
  return eventually(
    async () => {
      const { body: read } = await test('GET', `/internal/reports/${id}`);
      return read.report.status === 'pending' ? undefined : read.report;
    },
    { deadlineMs: 30_000, description: `report ${id} to end` },
  );
}

async function download(id: string): Promise<{ status: number; type: string | undefined; text: string }> {
  const response = await request(`${baseUrl}/internal/reports/${id}/file`, {
    headers: { 'x-organization-id': organization, 'x-mode': 'test', 'x-internal-token': CALLER_TOKENS.gateway },
  });
  return {
    status: response.statusCode,
    type: response.headers['content-type'] as string | undefined,
    text: await response.body.text(),
  };
}

beforeAll(async () => {
  const { kafkaBrokers, prefix, ...started } = await startOrdersApp(name, {
    REPORT_LEASE_MS: '1000',
    REPORT_POLL_INTERVAL_MS: '200',
  });
  ({ app, url: baseUrl } = started);
  mongo = new MongoClient(inject('engines').mongoUrl);
  db = mongo.db(database);
  const kafka = createKafka({ brokers: kafkaBrokers, clientId: 'orders-reports-probe' });
  probes.push(
    await readTopic({
      kafka,
      topic: topicName(prefix, TOPICS.reportEvents),
      groupId: `${prefix}.reports`,
      onMessage: (message) => void events.push(ReportPublicEventMessage.parse(JSON.parse(message.value || '{}'))),
    }),
  );
}, 60_000);

afterAll(async () => {
  for (const probe of probes) await probe.stop();
  await app?.stop();
  await db?.dropDatabase().catch(() => {});
  await mongo?.close();
});

describe('report runs (D52)', () => {
  it('When a balance transactions report runs, then its CSV holds the window’s lines of this tenant oldest first, amounts signed, and report.succeeded is published', async () => {
    const inside = [line(at(3), 1500), line(at(2), -500), line(at(20), 700)];
    const outside = [
      line(at(0), 100), // the day before the window
      line(new Date(WINDOW.createdBefore), 100), // createdBefore is exclusive
      line(at(5), 100, { organizationId: 'org_other' }),
      line(at(5), 100, { mode: 'live' }),
    ];
    await db.collection<Line>('balance_transactions').insertMany([...inside, ...outside]);
    // Recorded before the run's asOf (its start less the settle margin).
    await new Promise((resolve) => setTimeout(resolve, 2_100));

    const report = await runReport({ type: 'balance_transactions', ...WINDOW });
    expect(report).toMatchObject({ status: 'succeeded', rows: 3, fileUrl: `/v0/reports/${report.id}/file` });
    expect(Date.parse(report.asOf)).toBeGreaterThanOrEqual(Math.max(...inside.map((l) => l.recordedAt.getTime())));
    const file = await download(report.id);
    expect(file.status).toBe(200);
    expect(file.type).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(file.text);
    expect(rows[0]).toEqual(['id', 'type', 'orderId', 'sourceId', 'amount', 'currency', 'createdAt', 'recordedAt']);
    const sorted = [...inside].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    expect(rows.slice(1)).toEqual(
      sorted.map((l) => [
        l._id,
        l.type,
        l.orderId,
        l.sourceId,
        String(l.amount),
        'EUR',
        l.createdAt.toISOString(),
        l.recordedAt.toISOString(),
      ]),
    );
    // The same bytes at every download.
    expect((await download(report.id)).text).toBe(file.text);
    const event = await eventually(() => events.find((e) => e.reportId === report.id));
    expect(event.type).toBe('report.succeeded');
    expect(event.body).toMatchObject({ event: 'report.succeeded', report: { id: report.id, rows: 3 } });
  });

  it('When orders and refunds reports run, then each lists its records, a formula-looking externalId neutralised', async () => {
    const session = `cs_test_${randomBytes(12).toString('hex')}`;
    const externalId = `=HYPERLINK("http://evil")-${suffix}`;
    const created = await test(
      'POST',
      '/internal/orders',
      { externalId, items: [{ name: 'Tea', quantity: 1, unitPrice: 1000 }] },
      { session },
    );
    expect(created.status).toBe(201);
    const orderId = created.body.order.id as string;
    const paid = await test('POST', `/internal/orders/${orderId}/payments`, {
      paymentId: `pay-${suffix}`,
      amount: 1000,
      method: 'card',
    });
    expect(paid.status).toBe(200);
    const refund = await test('POST', `/internal/orders/${orderId}/refunds`, { amount: 300, reason: 'duplicate' });
    expect(refund.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const now = Date.now();
    const window = {
      createdAfter: new Date(now - 60_000).toISOString(),
      createdBefore: new Date(now + 60_000).toISOString(),
    };

    const orders = await runReport({ type: 'orders', ...window });
    expect(orders).toMatchObject({ status: 'succeeded', rows: 1 });
    const orderRows = parseCsv((await download(orders.id)).text);
    expect(orderRows[0]).toEqual([
      'id',
      'externalId',
      'status',
      'paymentStatus',
      'currency',
      'total',
      'paid',
      'refunded',
      'createdAt',
      'updatedAt',
    ]);
    expect(orderRows[1]?.slice(0, 8)).toEqual([
      orderId,
      `'${externalId}`,
      'completed',
      'partially_refunded',
      created.body.order.currency,
      '1000',
      '1000',
      '300',
    ]);

    const refunds = await runReport({ type: 'refunds', ...window });
    expect(refunds).toMatchObject({ status: 'succeeded', rows: 1 });
    const refundRows = parseCsv((await download(refunds.id)).text);
    expect(refundRows[1]?.slice(0, 7)).toEqual([
      refund.body.refund.id,
      orderId,
      'succeeded',
      '300',
      created.body.order.currency,
      'duplicate',
      '',
    ]);
  });

  it('When the same Idempotency-Key is sent twice, then it is one report (D42)', async () => {
    const headers = { 'x-idempotency-record': `rec_${suffix}`, 'x-idempotency-since': new Date().toISOString() };
    const first = await test('POST', '/internal/reports', { type: 'orders', ...WINDOW }, { headers });
    const second = await test('POST', '/internal/reports', { type: 'orders', ...WINDOW }, { headers });
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.report.id).toBe(first.body.report.id);
    expect(await db.collection('reports').countDocuments({ _id: first.body.report.id })).toBe(1);
    const other = await test('POST', '/internal/reports', { type: 'orders', ...WINDOW });
    expect(other.body.report.id).not.toBe(first.body.report.id);
  });

  it('When a report runs while lines are still being inserted, then it holds exactly the lines recorded up to asOf', async () => {
    const scope = { organizationId: `org_busy_${suffix}`, mode: 'test' as const };
    const call = internalCaller(() => baseUrl, { 'x-organization-id': scope.organizationId, 'x-mode': 'test' });
    let inserting = true;
    const inserter = (async () => {
      for (let minute = 0; inserting; minute += 1) {
        await db
          .collection<Line>('balance_transactions')
          .insertMany([line(at(10, minute % 1000), 100 + minute, scope), line(at(11, minute % 1000), -1, scope)]);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const created = await call('POST', '/internal/reports', { type: 'balance_transactions', ...WINDOW });
    const id = created.body.report.id as string;
    const report = await eventually(
      async () => {
        const { body } = await call('GET', `/internal/reports/${id}`);
        return body.report.status === 'succeeded' ? body.report : undefined;
      },
      { deadlineMs: 30_000 },
    );
    // Still inserting when the run ended: lines recorded after asOf exist and are not in the file.
    inserting = false;
    await inserter;
    const lines = db.collection<Line>('balance_transactions');
    const upToAsOf = await lines
      .find({ ...scope, recordedAt: { $lte: new Date(report.asOf) } }, { projection: { _id: 1 } })
      .toArray();
    expect(await lines.countDocuments({ ...scope, recordedAt: { $gt: new Date(report.asOf) } })).toBeGreaterThan(0);
    const response = await request(`${baseUrl}/internal/reports/${id}/file`, {
      headers: {
        'x-organization-id': scope.organizationId,
        'x-mode': 'test',
        'x-internal-token': CALLER_TOKENS.gateway,
      },
    });
    const rows = parseCsv(await response.body.text()).slice(1);
    expect(report.rows).toBe(upToAsOf.length);
    expect(new Set(rows.map((r) => r[0]))).toEqual(new Set(upToAsOf.map((l) => l._id)));
    expect(rows).toHaveLength(upToAsOf.length);
  }, 60_000);

  it('When a report is older than 30 days, then it and its file are 404, and the retention sweep deletes both', async () => {
    const id = newId('rpt', 'test');
    const fileId = `${id}.1`;
    const bucket = new GridFSBucket(db, { bucketName: 'report_files' });
    await new Promise<void>((resolve, reject) =>
      bucket
        .openUploadStreamWithId(fileId as never, `${fileId}.csv`)
        .end('id\r\n')
        .on('finish', () => resolve())
        .on('error', reject),
    );
    const createdAt = new Date(Date.now() - 31 * 24 * 3_600_000);
    await db.collection('reports').insertOne({
      _id: id as never,
      organizationId: organization,
      mode: 'test',
      type: 'orders',
      status: 'succeeded',
      createdAfter: new Date(WINDOW.createdAfter),
      createdBefore: new Date(WINDOW.createdBefore),
      createdAt,
      expiresAt: new Date(createdAt.getTime() + 30 * 24 * 3_600_000),
      attempts: 1,
      rows: 0,
      asOf: createdAt,
      fileId,
      outbox: [],
      outboxPending: false,
    });
    const read = await test('GET', `/internal/reports/${id}`);
    expect(read).toMatchObject({ status: 404, body: { code: 'REPORT_NOT_FOUND' } });
    expect((await download(id)).status).toBe(404);
    await eventually(async () => (await db.collection('reports').countDocuments({ _id: id as never })) === 0);
    expect(await db.collection('report_files.files').countDocuments({ _id: fileId as never })).toBe(0);
    expect(await db.collection('report_files.chunks').countDocuments({ files_id: fileId })).toBe(0);
  });

  it('When a runner crashed holding a report, then another takes it over once its lease expires and deletes its chunks', async () => {
    const id = newId('rpt', 'test');
    await db.collection('report_files.chunks').insertOne({ files_id: `${id}.1`, n: 0, data: Buffer.from('half') });
    const now = Date.now();
    await db.collection('reports').insertOne({
      _id: id as never,
      organizationId: organization,
      mode: 'test',
      type: 'balance_transactions',
      status: 'pending',
      createdAfter: new Date(WINDOW.createdAfter),
      createdBefore: new Date(WINDOW.createdBefore),
      createdAt: new Date(now),
      expiresAt: new Date(now + 30 * 24 * 3_600_000),
      lease: { owner: 'a-runner-that-crashed', until: new Date(now + 1_000) },
      attempts: 1,
      outbox: [],
      outboxPending: false,
    });
    const taken = await eventually(
      async () => {
        const { body } = await test('GET', `/internal/reports/${id}`);
        return body.report.status === 'succeeded' ? body.report : undefined;
      },
      { deadlineMs: 20_000 },
    );
    expect(Date.parse(taken.asOf)).toBeGreaterThan(now + 1_000 - 2_000);
    const stored = await db.collection('reports').findOne({ _id: id as never });
    expect(stored).toMatchObject({ attempts: 2, fileId: `${id}.2` });
    expect(stored?.lease).toBeUndefined();
    expect(await db.collection('report_files.chunks').countDocuments({ files_id: `${id}.1` })).toBe(0);
    expect((await download(id)).status).toBe(200);
  });

  it('When a report is asked for in error, then the codes are D52’s: malformed body, window, id, not ready', async () => {
    const tooLong = await test('POST', '/internal/reports', {
      type: 'orders',
      createdAfter: '2025-01-01T00:00:00.000Z',
      createdBefore: '2026-01-03T00:00:00.000Z',
    });
    expect(tooLong).toMatchObject({ status: 400, body: { code: 'REPORT_CREATE_FAILED' } });
    expect(tooLong.body.details[0].path).toBe('createdBefore');
    const unknown = await test('POST', '/internal/reports', { type: 'payouts', ...WINDOW });
    expect(unknown).toMatchObject({ status: 400, body: { code: 'REPORT_CREATE_FAILED' } });
    expect(await test('GET', '/internal/reports/rpt_nope')).toMatchObject({
      status: 400,
      body: { code: 'INVALID_REPORT_ID' },
    });
    expect(await test('GET', `/internal/reports/${newId('rpt', 'test')}`)).toMatchObject({ status: 404 });
    const id = newId('rpt', 'test');
    await db.collection('reports').insertOne({
      _id: id as never,
      organizationId: organization,
      mode: 'test',
      type: 'orders',
      status: 'pending',
      createdAfter: new Date(WINDOW.createdAfter),
      createdBefore: new Date(WINDOW.createdBefore),
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
      // Held by a runner that lives: not taken over during this test.
      lease: { owner: 'someone-else', until: new Date(Date.now() + 60_000) },
      attempts: 1,
      outbox: [],
      outboxPending: false,
    });
    const notReady = await download(id);
    expect(notReady.status).toBe(409);
    expect(JSON.parse(notReady.text)).toMatchObject({ code: 'REPORT_NOT_READY' });
  });
});
