import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import {
  consumerGroupLag,
  createEventProducer,
  createKafka,
  type EventProducer,
  type KafkaClient,
} from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { MongoClient, type Db } from '@checkout/mongo';
import { CONSUMER_GROUPS, TOPICS, topicName, type BalanceTransaction } from '@checkout/contracts';
import { eventually } from '@checkout/testing';
import type { OrdersApp } from '../../src/app';
import { BALANCE_SETTLE_MS } from '../../src/domain/books.use-cases';
import { internalCaller, startOrdersApp } from './support';

// D52 in the orders service alone, in-process on the real engines: the ledger's consumer group builds one line per
// money movement from orders.events, the counting keeps the balance equal to the lines, and the internal routes
// answer what the gateway forwards. The counting's crash cases are books-counting.component.test.ts.

const suffix = randomBytes(4).toString('hex');
let app: OrdersApp;
let baseUrl: string;
let prefix: string;
let kafka: KafkaClient;
let producer: EventProducer;
let client: MongoClient;
let db: Db;
const events: Array<{ key: string; value: string }> = [];
const stops: Array<() => Promise<void>> = [];

type Caller = ReturnType<typeof internalCaller>;
let merchants = 0;
/** A merchant of its own for each test: its balance holds only what the test does. */
function merchant(mode: 'test' | 'live' = 'test'): { call: Caller; organization: string } {
  const organization = `org_${suffix}_${(merchants += 1)}`;
  return { call: internalCaller(() => baseUrl, { 'x-organization-id': organization, 'x-mode': mode }), organization };
}
const as = (organization: string, mode: 'test' | 'live') =>
  internalCaller(() => baseUrl, { 'x-organization-id': organization, 'x-mode': mode });

async function sessionOrder(call: Caller, total = 1000, mode = 'test'): Promise<string> {
  const session = `cs_${mode}_${randomBytes(12).toString('hex')}`;
  const created = await call(
    'POST',
    '/internal/orders',
    { items: [{ name: 'Tea', quantity: 1, unitPrice: total }] },
    { session },
  );
  expect(created.status).toBe(201);
  return created.body.order.id as string;
}

async function pay(call: Caller, orderId: string, amount: number, paymentId = `pay-${randomBytes(6).toString('hex')}`) {
  const paid = await call('POST', `/internal/orders/${orderId}/payments`, { paymentId, amount, method: 'card' });
  expect(paid.status).toBe(200);
  return paymentId;
}

async function refund(call: Caller, orderId: string, amount: number, outcome = 'succeeded'): Promise<string> {
  const made = await call('POST', `/internal/test-helpers/orders/${orderId}/refunds`, { amount, outcome });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.refund.id as string;
}

/** Every line of the merchant (paged through), newest first. */
async function allLines(call: Caller, query = ''): Promise<BalanceTransaction[]> {
  const lines: BalanceTransaction[] = [];
  for (let page = 1; ; page++) {
    const listed = await call('GET', `/internal/balance-transactions?limit=100&page=${page}${query}`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    lines.push(...(listed.body.balanceTransactions as BalanceTransaction[]));
    if (!listed.body.pagination.hasMore) return lines;
  }
}

const linesOf = (call: Caller, orderId: string) => allLines(call, `&orderId=${orderId}`);
const sum = (lines: readonly BalanceTransaction[]) => lines.reduce((total, line) => total + line.amount, 0);

/** Waits until the ledger's group has read everything on orders.events: then a duplicate has had its chance. */
async function ledgerCaughtUp(): Promise<void> {
  const groupId = topicName(prefix, CONSUMER_GROUPS.ordersBalanceLines);
  const topic = topicName(prefix, TOPICS.orderEvents);
  await eventually(
    async () => {
      const lag = await consumerGroupLag(kafka, groupId, [topic]);
      return [...lag.values()].every((behind) => behind === 0n) && lag.size > 0;
    },
    { deadlineMs: 20_000, intervalMs: 200, description: 'the ledger group read every order event' },
  );
}

/** The balance once every line is counted (the count settles within the consumer's handling or the sweep). */
async function settledBalance(call: Caller, count: number) {
  return eventually(
    async () => {
      const read = await call('GET', '/internal/balance');
      expect(read.status).toBe(200);
      return read.body.balance.count === count && read.body.balance;
    },
    { deadlineMs: 15_000, description: `a balance of ${count} lines` },
  );
}

async function orderAmounts(call: Caller, orderId: string): Promise<{ paid: number; refunded: number }> {
  const read = await call('GET', `/internal/orders/${orderId}`);
  expect(read.status).toBe(200);
  return read.body.order.amounts;
}

beforeAll(async () => {
  const started = await startOrdersApp(`books-${suffix}`, { BALANCE_SWEEP_INTERVAL_MS: '200' });
  ({ app, url: baseUrl, prefix } = started);
  kafka = createKafka({ brokers: started.kafkaBrokers, clientId: 'orders-books-probe' });
  producer = createEventProducer(kafka);
  await producer.connect();
  const probe = await readTopic({
    kafka,
    topic: topicName(prefix, TOPICS.orderEvents),
    groupId: `${prefix}.probe`,
    onMessage: (m) => events.push({ key: m.key ?? '', value: m.value ?? '' }),
  });
  stops.push(() => probe.stop());
  client = await MongoClient.connect(inject('engines').mongoUrl);
  db = client.db(`orders_books_${suffix}`);
});

afterAll(async () => {
  for (const stop of stops) await stop();
  await producer?.disconnect();
  await app?.stop();
  await db?.dropDatabase();
  await client?.close();
});

describe('balance transactions (D52): one line per money movement', () => {
  it('When an order is paid twice and refunded (succeeded, pending, failed), then each payment and the succeeded refund is one line, and Σ lines = paid − refunded', async () => {
    const { call } = merchant();
    const order = await sessionOrder(call, 1000);
    const first = await pay(call, order, 400);
    const second = await pay(call, order, 600);
    const succeeded = await refund(call, order, 250);
    const pending = await refund(call, order, 100, 'pending');
    await refund(call, order, 50, 'failed');

    const lines = await eventually(async () => {
      const found = await linesOf(call, order);
      return found.length === 3 && found;
    });
    expect(lines.map((l) => [l.type, l.sourceId, l.amount]).sort()).toEqual(
      [
        ['payment', first, 400],
        ['payment', second, 600],
        ['refund', succeeded, -250],
      ].sort(),
    );
    const amounts = await orderAmounts(call, order);
    expect(sum(lines)).toBe(amounts.paid - amounts.refunded);

    // The pending refund becomes a line when it succeeds, at its settlement.
    const settled = await call('POST', `/internal/test-helpers/refunds/${pending}/settle`, { outcome: 'succeeded' });
    expect(settled.status).toBe(200);
    const after = await eventually(async () => {
      const found = await linesOf(call, order);
      return found.length === 4 && found;
    });
    expect(after.find((l) => l.sourceId === pending)).toMatchObject({
      type: 'refund',
      amount: -100,
      createdAt: settled.body.refund.updatedAt,
    });
    const now = await orderAmounts(call, order);
    expect(sum(after)).toBe(now.paid - now.refunded);
    await ledgerCaughtUp();
    expect(await linesOf(call, order)).toHaveLength(4);
  });

  it('When the same payment notification is applied twice, also concurrently with a refund, then it is one line, counted once', async () => {
    const { call } = merchant();
    const order = await sessionOrder(call, 1000);
    const paymentId = `pay-${randomBytes(6).toString('hex')}`;
    const apply = () => call('POST', `/internal/orders/${order}/payments`, { paymentId, amount: 1000, method: 'card' });
    const [a, b] = await Promise.all([apply(), apply()]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [again, refunded] = await Promise.all([
      apply(),
      call('POST', `/internal/orders/${order}/refunds`, { amount: 300 }),
    ]);
    expect([again.status, refunded.status]).toEqual([200, 201]);

    await ledgerCaughtUp();
    const balance = await settledBalance(call, 2);
    const lines = await linesOf(call, order);
    expect(lines.filter((l) => l.sourceId === paymentId)).toHaveLength(1);
    expect(balance).toMatchObject({ payments: 1000, refunds: 300, net: 700, count: 2 });
    expect(sum(lines)).toBe(700);
  });

  it('When orders.events messages are delivered again (replayed, duplicated), then no second line is made and nothing is counted twice', async () => {
    const { call } = merchant();
    const orders = [await sessionOrder(call, 500), await sessionOrder(call, 700)];
    for (const order of orders) await pay(call, order, order === orders[0] ? 500 : 700);
    await refund(call, orders[1] as string, 200);
    const before = await settledBalance(call, 3);
    const mine = await eventually(() => {
      const found = events.filter((e) => orders.includes(e.key));
      return found.length >= 3 && found;
    });

    // Every event of these orders, three more times, out of order too.
    const topic = topicName(prefix, TOPICS.orderEvents);
    const again = [...mine, ...[...mine].reverse(), ...mine].map((e) => ({ topic, key: e.key, value: e.value }));
    await producer.send(again);
    await ledgerCaughtUp();

    // Every duplicate was handled (the group's offsets passed them) and found its lines stored: nothing moved.
    const after = await call('GET', '/internal/balance');
    expect(after.body.balance).toMatchObject({
      payments: before.payments,
      refunds: before.refunds,
      count: before.count,
    });
    expect((await allLines(call)).length).toBe(3);
    const stored = await db
      .collection('balance_transactions')
      .countDocuments({ orderId: { $in: orders }, counted: true });
    expect(stored).toBe(3);
  });
});

describe('the balance and the lines through the internal API (D52)', () => {
  it('When a merchant has lines, then the balance equals their sums, asOf is a past instant, and the daily totals agree', async () => {
    const { call } = merchant();
    for (const amount of [300, 500, 900]) {
      const order = await sessionOrder(call, amount);
      await pay(call, order, amount);
      if (amount === 900) await refund(call, order, 400);
    }
    const balance = await settledBalance(call, 4);
    const lines = await allLines(call);
    const payments = sum(lines.filter((l) => l.amount > 0));
    const refunds = -sum(lines.filter((l) => l.amount < 0));
    expect(balance).toMatchObject({ currency: 'USD', payments, refunds, net: payments - refunds, count: lines.length });
    expect(payments).toBe(1700);
    expect(refunds).toBe(400);
    // asOf trails now by the settle margin (an insert in flight is not promised), then passes every line recorded.
    expect(Date.parse(balance.asOf)).toBeLessThanOrEqual(Date.now() - BALANCE_SETTLE_MS);
    const lastRecorded = Math.max(...lines.map((l) => Date.parse(l.recordedAt)));
    await eventually(
      async () => Date.parse((await call('GET', '/internal/balance')).body.balance.asOf) > lastRecorded,
      {
        description: 'asOf after the last line recorded',
      },
    );

    const daily = await call('GET', '/internal/balance/daily?days=7');
    expect(daily.status).toBe(200);
    expect(daily.body.days).toHaveLength(7);
    const today = new Date().toISOString().slice(0, 10);
    expect(daily.body.days.at(-1)).toEqual({ day: today, payments, refunds, net: payments - refunds, count: 4 });
  });

  it('When another organization or the other mode reads a line, then it is 404, its list is empty and its balance is 0', async () => {
    const { call, organization } = merchant();
    const order = await sessionOrder(call, 800);
    await pay(call, order, 800);
    const [line] = await eventually(async () => {
      const found = await linesOf(call, order);
      return found.length === 1 && found;
    });
    const id = (line as BalanceTransaction).id;
    expect((await call('GET', `/internal/balance-transactions/${id}`)).body.balanceTransaction).toEqual(line);

    for (const other of [as(`${organization}_other`, 'test'), as(organization, 'live')]) {
      const read = await other('GET', `/internal/balance-transactions/${id}`);
      expect([read.status, read.body.code]).toEqual([404, 'BALANCE_TRANSACTION_NOT_FOUND']);
      expect((await other('GET', `/internal/balance-transactions?orderId=${order}`)).body.balanceTransactions).toEqual(
        [],
      );
      expect((await other('GET', '/internal/balance')).body.balance).toMatchObject({ payments: 0, count: 0 });
    }
  });

  it('When the list is filtered by type, order and window, then it holds exactly those lines, newest first', async () => {
    const { call } = merchant();
    const a = await sessionOrder(call, 1000);
    const b = await sessionOrder(call, 1000);
    await pay(call, a, 1000);
    await pay(call, b, 1000);
    await refund(call, a, 100);
    await refund(call, b, 200);
    const lines = await eventually(async () => {
      const found = await allLines(call);
      return found.length === 4 && found;
    });
    const times = lines.map((l) => Date.parse(l.createdAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));

    expect((await allLines(call, '&type=refund')).map((l) => l.amount).sort((x, y) => x - y)).toEqual([-200, -100]);
    expect((await allLines(call, `&orderId=${a}&type=payment`)).map((l) => l.orderId)).toEqual([a]);
    const newest = lines[0] as BalanceTransaction;
    const window = `&createdAfter=${newest.createdAt}&createdBefore=${new Date(Date.parse(newest.createdAt) + 1).toISOString()}`;
    expect((await allLines(call, window)).map((l) => l.id)).toContain(newest.id);
    const before = await allLines(call, `&createdBefore=${newest.createdAt}`);
    expect(before.map((l) => l.id)).not.toContain(newest.id);
    const page = await call('GET', '/internal/balance-transactions?limit=1&page=2');
    expect(page.body.pagination).toEqual({ page: 2, limit: 1, total: 4, hasMore: true });
    expect(page.body.balanceTransactions[0].id).toBe(lines[1]?.id);
  });

  it.each([
    ['type=payout'],
    ['createdAfter=yesterday'],
    ['createdBefore=2026-13-01T00:00:00Z'],
    ['orderId=not-an-order'],
    ['limit=0'],
    ['page=1.5'],
    ['unknown=1'],
  ])('When the list query is %s, then it is 400 INVALID_REQUEST with details', async (query) => {
    const { call } = merchant();
    const listed = await call('GET', `/internal/balance-transactions?${query}`);
    expect([listed.status, listed.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(listed.body.details.length).toBeGreaterThan(0);
  });

  it('When a line id is malformed, then it is 400 INVALID_BALANCE_TRANSACTION_ID; a well-formed unknown one is 404', async () => {
    const { call } = merchant();
    const malformed = await call('GET', '/internal/balance-transactions/ord_test_abc');
    expect([malformed.status, malformed.body.code]).toEqual([400, 'INVALID_BALANCE_TRANSACTION_ID']);
    const unknown = await call('GET', `/internal/balance-transactions/txn_test_${'x'.repeat(24)}`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'BALANCE_TRANSACTION_NOT_FOUND']);
    const balance = await call('GET', '/internal/balance?currency=usd');
    expect([balance.status, balance.body.code]).toEqual([400, 'INVALID_REQUEST']);
  });
});
