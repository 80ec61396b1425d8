import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, parseCsv } from '@checkout/testing';
import { PROCESSOR_SIGNATURE_HEADER, REPORT_COLUMNS, signProcessorPayload } from '@checkout/contracts';
import { Checkout } from '@checkout/sdk';
import { startStack, type InProcessStack } from './support/stack';
import { Api, type ApiResponse } from './support/api';
import { buildOrderInput, buildSessionInput, uniqueId } from './support/factories';

// D52 (the merchant's books) end to end through the gateway, all four services on the real engines: balance
// transactions and the balance in the API, isolation by organization and mode (D4), the race of a payment
// notification delivered twice with a concurrent refund, a report run while payments are still arriving, a
// formula-looking cell neutralised in the CSV, and the balance equal to the sum of the lines. Lines are built
// asynchronously (orders' `orders.balance-lines` consumer), so every check polls for its condition.

let stack: InProcessStack;

const TOTAL = 1125; // buildOrderInput: 2 × 350 + 425
// The API's line and the CSV's columns are the same names, in the same order (D52).
const LINE_KEYS: readonly string[] = REPORT_COLUMNS.balance_transactions;
const LINES_DEADLINE_MS = 30_000;

interface Line {
  id: string;
  type: 'payment' | 'refund';
  orderId: string;
  sourceId: string;
  amount: number;
  currency: string;
  createdAt: string;
  recordedAt: string;
}

interface Report {
  id: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  createdAfter: string;
  createdBefore: string;
  createdAt: string;
  rows?: number;
  asOf?: string;
  fileUrl?: string;
  failureReason?: string;
}

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
      orders: { OUTBOX_SWEEP_INTERVAL_MS: '1000' },
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

async function merchant(label: string): Promise<{ test: Api; live: Api; testKey: string }> {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId(label));
  return {
    test: new Api(stack.gatewayUrl, org.testKey),
    live: new Api(stack.gatewayUrl, org.liveKey),
    testKey: org.testKey,
  };
}

/** A test-mode session paid in full with the test helper: its order has one payment of TOTAL. */
async function paidOrder(api: Api, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await api.post('/v0/checkout/sessions', buildSessionInput(extra));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const paid = await api.post(`/v0/test_helpers/checkout/sessions/${created.body.session.id}/pay`, {});
  expect(paid.body.session?.status, JSON.stringify(paid.body)).toBe('completed');
  return created.body.session.order.id as string;
}

/** Every line of the key's organization and mode (or of one order), newest first, through the pages. */
async function allLines(api: Api, filters = ''): Promise<Line[]> {
  const lines: Line[] = [];
  for (let page = 1; ; page += 1) {
    const answer = await api.get(`/v0/balance_transactions?limit=100&page=${page}${filters}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    lines.push(...(answer.body.balanceTransactions as Line[]));
    if (!answer.body.pagination.hasMore) return lines;
  }
}

/** Polls until the lines of an order are `count` (they are built off the payment path). */
function linesOf(api: Api, orderId: string, count: number): Promise<Line[]> {
  return eventually(
    async () => {
      const lines = await allLines(api, `&orderId=${orderId}`);
      return lines.length >= count ? lines : undefined;
    },
    { deadlineMs: LINES_DEADLINE_MS, description: `${count} balance transactions of ${orderId}` },
  );
}

/** Polls a report until it has ended (succeeded or failed). */
function finished(api: Api, id: string): Promise<Report> {
  return eventually(
    async () => {
      const report = (await api.get(`/v0/reports/${id}`)).body.report as Report;
      return report.status === 'pending' ? undefined : report;
    },
    { deadlineMs: 60_000, description: `report ${id} to finish` },
  );
}

/** The live processor's signed notification, through the gateway as the processor sends it. */
function processor(path: 'notifications' | 'refund_notifications', body: unknown): Promise<ApiResponse> {
  const secret = path === 'notifications' ? stack.env.processorWebhookSecret : stack.env.processorRefundWebhookSecret;
  const raw = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json',
    [PROCESSOR_SIGNATURE_HEADER]: signProcessorPayload(secret, raw, Math.floor(Date.now() / 1000)),
  };
  return new Api(stack.gatewayUrl, undefined).send('POST', `/v0/processor/${path}`, undefined, headers, raw);
}

const sum = (lines: readonly Line[]) => lines.reduce((total, line) => total + line.amount, 0);
const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

describe('balance transactions (D52)', () => {
  it('When an order is paid and refunded in part, then one payment line and one refund line, in the API shapes, filtered and paged', async () => {
    const { test } = await merchant('Books shapes');
    const orderId = await paidOrder(test);
    const refund = (await test.post(`/v0/orders/${orderId}/refunds`, { amount: 125 })).body.refund;
    expect(refund.status).toBe('succeeded');
    const lines = await linesOf(test, orderId, 2);
    expect(lines).toHaveLength(2);
    const [newest, oldest] = lines as [Line, Line];
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual([...LINE_KEYS].sort());
      expect(line.id).toMatch(/^txn_test_/);
      expect(line).toMatchObject({ orderId, currency: 'USD' });
      expect(Date.parse(line.recordedAt)).toBeGreaterThanOrEqual(Date.parse(line.createdAt));
    }
    expect(newest).toMatchObject({ type: 'refund', sourceId: refund.id, amount: -125 });
    expect(oldest).toMatchObject({ type: 'payment', amount: TOTAL });
    expect(oldest.sourceId).not.toBe('');
    expect(Date.parse(newest.createdAt)).toBeGreaterThanOrEqual(Date.parse(oldest.createdAt));

    const one = await test.get(`/v0/balance_transactions/${newest.id}`);
    expect(one).toMatchObject({ status: 200, body: { balanceTransaction: newest } });
    const refunds = await test.get(`/v0/balance_transactions?type=refund&orderId=${orderId}`);
    expect(refunds.body.balanceTransactions).toEqual([newest]);
    const page1 = await test.get(`/v0/balance_transactions?limit=1`);
    expect(page1.body.balanceTransactions).toEqual([newest]);
    expect(page1.body.pagination).toMatchObject({ page: 1, limit: 1, hasMore: true });
    const page2 = await test.get(`/v0/balance_transactions?limit=1&page=2`);
    expect(page2.body.balanceTransactions).toEqual([oldest]);
    const before = encodeURIComponent(newest.createdAt);
    const window = await test.get(`/v0/balance_transactions?createdBefore=${before}&createdAfter=${hourAgo()}`);
    expect(window.body.balanceTransactions.map((l: Line) => l.id)).not.toContain(newest.id);

    const order = (await test.get(`/v0/orders/${orderId}`)).body.order;
    expect(sum(lines)).toBe(order.amounts.paid - order.amounts.refunded);

    for (const query of ['createdAfter=yesterday', 'createdBefore=2026-13-01T00:00:00Z', 'type=fee', 'limit=0']) {
      const refused = await test.get(`/v0/balance_transactions?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code, query).toBe('INVALID_REQUEST');
    }
    expect((await test.get('/v0/balance_transactions/txn_nope')).body.code).toBe('INVALID_BALANCE_TRANSACTION_ID');
    expect((await test.get(`/v0/balance_transactions/${orderId}`)).body.code).toBe('INVALID_BALANCE_TRANSACTION_ID');
  });

  it('When another organization or the other mode asks for a line, then 404 as an unknown id, and their lists and balances hold none of it (D4)', async () => {
    const { test, live } = await merchant('Books isolation');
    const { test: other } = await merchant('Books other');
    const orderId = await paidOrder(test);
    const [line] = await linesOf(test, orderId, 1);
    for (const api of [other, live]) {
      const missing = await api.get(`/v0/balance_transactions/${line?.id}`);
      expect(missing).toMatchObject({ status: 404, body: { code: 'BALANCE_TRANSACTION_NOT_FOUND' } });
      expect((await api.get(`/v0/balance_transactions?orderId=${orderId}`)).body.balanceTransactions).toEqual([]);
      expect((await api.get('/v0/balance_transactions')).body.balanceTransactions).toEqual([]);
      expect((await api.get('/v0/balance')).body.balance).toMatchObject({ payments: 0, refunds: 0, net: 0, count: 0 });
    }
    const unknown = `txn_test_${randomBytes(12).toString('hex')}`;
    expect((await test.get(`/v0/balance_transactions/${unknown}`)).status).toBe(404);
  });

  it("When a live payment's notification is delivered twice while a refund of it runs, then exactly one payment line and one refund line, and Σ lines = paid − refunded", async () => {
    const { live } = await merchant('Books race');
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const session = (await live.post('/v0/checkout/sessions', buildSessionInput())).body.session;
      const payment = {
        paymentId: `pay_live_${randomBytes(8).toString('hex')}`,
        sessionId: session.id,
        amount: TOTAL,
        method: 'card',
        capturedAt: new Date().toISOString(),
      };
      // Both deliveries and the refund leave together; the refund is tried again until the payment is there
      // (before it, nothing is refundable: 400 REFUND_FAILED).
      let refused = 0;
      const refundOnceRefundable = () =>
        eventually(
          async () => {
            const answer = await live.post(`/v0/orders/${session.order.id}/refunds`, { amount: 400 });
            if (answer.status === 400 && answer.body.code === 'REFUND_FAILED') {
              refused += 1;
              return undefined;
            }
            return answer;
          },
          { deadlineMs: 20_000, intervalMs: 5, description: 'the refund once the payment is applied' },
        );
      const [first, second, refund] = await Promise.all([
        processor('notifications', payment),
        processor('notifications', payment),
        refundOnceRefundable(),
      ]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(refund.status, JSON.stringify(refund.body)).toBe(201);
      const note = { refundId: refund.body.refund.id, outcome: 'succeeded', settledAt: new Date().toISOString() };
      const settled = await Promise.all([
        processor('refund_notifications', note),
        processor('refund_notifications', note),
      ]);
      expect(settled.map((s) => s.status)).toEqual([200, 200]);

      const order = (await live.get(`/v0/orders/${session.order.id}`)).body.order;
      expect(order.amounts).toMatchObject({ paid: TOTAL, refunded: 400 });
      const lines = await linesOf(live, session.order.id, 2);
      expect(lines.map((l) => `${l.type} ${l.sourceId} ${l.amount}`).sort()).toEqual(
        [`payment ${payment.paymentId} ${TOTAL}`, `refund ${refund.body.refund.id} -400`].sort(),
      );
      expect(lines.every((l) => l.id.startsWith('txn_live_'))).toBe(true);
      expect(sum(lines)).toBe(order.amounts.paid - order.amounts.refunded);
      outcomes.push(`refund admitted after ${refused} refusals`);
    }
    process.stderr.write(`books race, 3 rounds of a notification twice beside a refund: ${outcomes.join('; ')}\n`);
  });
});

describe('reports (D52)', () => {
  it('When a report runs while payments are still arriving, then its file holds exactly the lines recorded up to asOf, and the balance ends equal to Σ lines', async () => {
    const { test } = await merchant('Books report');
    const createdAfter = hourAgo();
    const made: string[] = [await paidOrder(test), await paidOrder(test)];
    await linesOf(test, made[0] as string, 1);
    let paying = true;
    const arriving = (async () => {
      while (paying) made.push(await paidOrder(test));
    })();
    const key = { 'idempotency-key': `report-${randomBytes(6).toString('hex')}` };
    const body = { type: 'balance_transactions', createdAfter, createdBefore: inAnHour() };
    const accepted = await test.post('/v0/reports', body, key);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(Object.keys(accepted.body)).toEqual(['report']);
    expect(accepted.body.report).toMatchObject({ ...body, status: 'pending' });
    expect(accepted.body.report.id).toMatch(/^rpt_test_/);
    const again = await test.post('/v0/reports', body, key);
    expect(again.body.report.id).toBe(accepted.body.report.id);

    expect((await finished(test, accepted.body.report.id)).status).toBe('succeeded');
    // A run holds what was recorded a settle margin (orders' 2 s) before it started: runs are made again, payments
    // still arriving, until one holds lines.
    const report = await eventually(
      async () => {
        const run = await finished(test, (await test.post('/v0/reports', body)).body.report.id);
        return (run.rows ?? 0) > 0 ? run : undefined;
      },
      { deadlineMs: 60_000, intervalMs: 200, description: 'a report holding lines while payments arrive' },
    );
    paying = false;
    await arriving;
    expect(report).toMatchObject({ status: 'succeeded', fileUrl: `/v0/reports/${report.id}/file` });
    const file = await test.get(report.fileUrl as string);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...records] = parseCsv(file.body as string);
    expect(header).toEqual(LINE_KEYS);
    expect(records).toHaveLength(report.rows as number);

    // Every payment made has its line by now; the file holds those recorded up to asOf, and no other.
    const lines = await eventually(
      async () => {
        const all = await allLines(test);
        return all.length === made.length ? all : undefined;
      },
      { deadlineMs: LINES_DEADLINE_MS, description: `the ${made.length} payments' lines` },
    );
    const asOf = Date.parse(report.asOf as string);
    const expected = lines.filter((l) => Date.parse(l.recordedAt) <= asOf);
    expect(records.map((r) => r[0]).sort()).toEqual(expected.map((l) => l.id).sort());
    const byId = new Map(lines.map((l) => [l.id, l]));
    for (const record of records) {
      const line = byId.get(record[0] as string) as Line;
      expect(record).toEqual(LINE_KEYS.map((k) => String(line[k as keyof Line])));
    }
    process.stderr.write(
      `books report while paying: ${made.length} payments, ${records.length} in the file (asOf ${report.asOf}), ` +
        `${lines.length - records.length} recorded after it\n`,
    );

    const balance = await eventually(
      async () => {
        const answer = (await test.get('/v0/balance')).body.balance;
        return answer.count === lines.length ? answer : undefined;
      },
      { deadlineMs: LINES_DEADLINE_MS, description: 'the balance to count every line' },
    );
    expect(Object.keys(balance).sort()).toEqual(['asOf', 'count', 'currency', 'net', 'payments', 'refunds']);
    expect(balance).toMatchObject({ currency: 'USD', payments: sum(lines), refunds: 0, net: sum(lines) });
  });

  it("When an order's externalId looks like a formula, then the orders report's cell is prefixed with ' and quoted as RFC 4180 says; the SDK reads the same file", async () => {
    const { test, testKey } = await merchant('Books csv');
    const externalId = `=HYPERLINK("http://x.example","a,b")-${randomBytes(3).toString('hex')}`;
    const order = (await test.post('/v0/orders', buildOrderInput({ externalId }))).body.order;
    const sdk = new Checkout(testKey, { baseUrl: stack.gatewayUrl });
    // A run holds the orders created a settle margin (orders' 2 s) before it started: run until one holds it.
    const report = await eventually(
      async () => {
        const created = await sdk.reports.create({
          type: 'orders',
          createdAfter: hourAgo(),
          createdBefore: inAnHour(),
        });
        expect(created.status).toBe('pending');
        const done = await eventually(
          async () => {
            const read = await sdk.reports.retrieve(created.id);
            return read.status === 'pending' ? undefined : read;
          },
          { deadlineMs: 60_000, description: 'the orders report' },
        );
        return done.rows === 0 ? undefined : done;
      },
      { deadlineMs: 60_000, intervalMs: 200, description: 'an orders report holding the order' },
    );
    expect(report).toMatchObject({ status: 'succeeded', rows: 1 });
    const text = await sdk.reports.downloadFile(report.id);
    expect(text).toContain(`"'=HYPERLINK(""http://x.example"",""a,b"")-`);
    const [header, row] = parseCsv(text);
    expect(header).toEqual(REPORT_COLUMNS.orders);
    expect(row).toEqual([
      order.id,
      `'${externalId}`,
      'open',
      'unpaid',
      'USD',
      String(TOTAL),
      '0',
      '0',
      order.createdAt,
      order.updatedAt,
    ]);
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('When a report is asked for badly, then 400 REPORT_CREATE_FAILED with details; an unknown or malformed id 404 / 400', async () => {
    const { test, live } = await merchant('Books refused');
    const { test: other } = await merchant('Books refused other');
    const day = 86_400_000;
    const now = Date.now();
    for (const body of [
      { type: 'payouts', createdAfter: hourAgo(), createdBefore: inAnHour() },
      {
        type: 'orders',
        createdAfter: new Date(now - 367 * day).toISOString(),
        createdBefore: new Date(now).toISOString(),
      },
      { type: 'orders', createdAfter: inAnHour(), createdBefore: hourAgo() },
      { type: 'orders', createdAfter: 'yesterday', createdBefore: inAnHour() },
      { type: 'orders', createdAfter: hourAgo(), createdBefore: inAnHour(), extra: true },
    ]) {
      const refused = await test.post('/v0/reports', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe('REPORT_CREATE_FAILED');
      expect(refused.body.details.length).toBeGreaterThan(0);
    }
    expect((await test.get('/v0/reports/rpt_nope')).body.code).toBe('INVALID_REPORT_ID');

    // Another organization's or the other mode's report is not found, as an unknown one (D4).
    const body = { type: 'refunds', createdAfter: hourAgo(), createdBefore: inAnHour() };
    const report = (await test.post('/v0/reports', body)).body.report as Report;
    for (const api of [other, live]) {
      expect((await api.get(`/v0/reports/${report.id}`)).body.code).toBe('REPORT_NOT_FOUND');
      expect((await api.get(`/v0/reports/${report.id}/file`)).status).toBe(404);
    }
    // Before it has succeeded its file is 409 REPORT_NOT_READY; then an empty window's file is its header row.
    const early = await test.get(`/v0/reports/${report.id}/file`);
    if (early.status !== 200) expect(early.body.code).toBe('REPORT_NOT_READY');
    expect(await finished(test, report.id)).toMatchObject({ status: 'succeeded', rows: 0 });
    expect((await test.get(`/v0/reports/${report.id}/file`)).body).toBe(`${REPORT_COLUMNS.refunds.join(',')}\r\n`);
    const unknown = await test.get(`/v0/reports/rpt_test_${randomBytes(12).toString('hex')}`);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'REPORT_NOT_FOUND' } });
  });
});
