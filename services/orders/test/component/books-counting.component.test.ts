import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createLogger } from '@checkout/logger';
import { MigrationRunner, MongoClient, ensureIndexes, type Db, type Scope } from '@checkout/mongo';
import { CommandCounter, openTestDatabase } from '@checkout/mongo/testing';
import {
  BalanceStore,
  queueEntryOf,
  type BalanceScope,
  type NewBalanceTransaction,
} from '../../src/store/balance.store';
import { OrdersStore } from '../../src/store/orders.store';
import { ORDER_INDEXES, COLLECTIONS } from '../../src/store/indexes';
import { orderMigrations } from '../../src/store/migrations';
import { Books } from '../../src/domain/books.use-cases';
import { balanceLinesOf } from '../../src/domain/balance-lines';
import { applyPayment, newOrder } from '../../src/domain/order';
import { createRefund } from '../../src/domain/refund';
import type { OrderDocument } from '../../src/store/order.document';

// D52's counting on the real engine, its steps called one by one: a step that stops between its phases (a crash, a
// replica killed), a zombie that commits what it read before another step counted it, many steps at once. In
// every case each line is in the totals exactly once. And the backfill (migration orders.0002) of orders paid
// before the ledger existed.

const suffix = randomBytes(4).toString('hex');
let db: Db;
let stop: () => Promise<void>;
let store: BalanceStore;
let scopes = 0;
const now = () => new Date();

/** A scope of its own for each test (the balances of the others do not move under it). */
const newScope = (): BalanceScope => ({
  organizationId: `org_${suffix}_${(scopes += 1)}`,
  mode: 'test',
  currency: 'USD',
});

let lineNumber = 0;
/** Lines of `amounts` (positive: a payment; negative: a refund), a day apart from 2026-03-01 on. */
function lines(scope: BalanceScope, amounts: readonly number[]): NewBalanceTransaction[] {
  return amounts.map((amount, i) => {
    lineNumber += 1;
    return {
      _id: `txn_test_${suffix}${String(lineNumber).padStart(8, '0')}`,
      organizationId: scope.organizationId,
      mode: scope.mode,
      type: amount >= 0 ? 'payment' : 'refund',
      orderId: `ord_test_${suffix}`,
      sourceId: `src_${lineNumber}`,
      amount,
      currency: scope.currency,
      createdAt: new Date(Date.UTC(2026, 2, 1 + (i % 3))),
      recordedAt: new Date(),
    };
  });
}

/** The balance must be exactly the lines: totals, per-day totals, and every line counted, nothing pending. */
async function expectExact(scope: BalanceScope, all: readonly NewBalanceTransaction[]): Promise<void> {
  const { balance, oldestUncounted } = await store.readBalance(scope);
  const payments = all.filter((l) => l.amount > 0).reduce((s, l) => s + l.amount, 0);
  const refunds = all.filter((l) => l.amount < 0).reduce((s, l) => s - l.amount, 0);
  expect(balance).toMatchObject({ payments, refunds, count: all.length, pending: null });
  expect(oldestUncounted).toBeNull();
  const days = Object.values(balance?.days ?? {});
  expect(days.reduce((s, d) => s + (d.count ?? 0), 0)).toBe(all.length);
  expect(days.reduce((s, d) => s + (d.payments ?? 0) - (d.refunds ?? 0), 0)).toBe(payments - refunds);
}

beforeAll(async () => {
  const opened = await openTestDatabase(inject('engines').mongoUrl, `orders_books_counting_${suffix}`);
  db = opened.db;
  stop = () => opened.stop();
  await ensureIndexes(db, ORDER_INDEXES);
  store = new BalanceStore(db);
});

afterAll(async () => {
  await stop?.();
});

describe('the counting (D52): every line in the balance exactly once', () => {
  it('When a step stops after its commit (phase one), then the next step finishes that batch and counts nothing twice', async () => {
    const scope = newScope();
    const first = lines(scope, [500, 300, -200]);
    expect(await store.insertMissing(scope, first)).toBe(3);
    const balance = await store.balanceForCounting(scope, now());
    const pending = await store.commitBatch(scope, balance.batches, await store.uncounted(scope, 10), now());
    expect(pending?.ids).toHaveLength(3);
    // The crash: the lines are in the totals, still uncounted, the batch pending.
    const more = lines(scope, [1000]);
    await store.insertMissing(scope, more);
    expect(await store.countAll(scope, now)).toBe(1);
    await expectExact(scope, [...first, ...more]);
  });

  it('When a step stops after marking its lines (before clearing the batch), then the next step clears it and goes on', async () => {
    const scope = newScope();
    const first = lines(scope, [700, -100]);
    await store.insertMissing(scope, first);
    const balance = await store.balanceForCounting(scope, now());
    const pending = await store.commitBatch(scope, balance.batches, await store.uncounted(scope, 10), now());
    await store.markCounted(scope, pending?.ids ?? []);
    const more = lines(scope, [50, 60]);
    await store.insertMissing(scope, more);
    expect(await store.countAll(scope, now)).toBe(2);
    await expectExact(scope, [...first, ...more]);
    // The sweep finds nothing left in this scope.
    expect(
      (await store.scopesToCount(new Date(Date.now() + 60_000), 1_000)).map((s) => s.organizationId),
    ).not.toContain(scope.organizationId);
  });

  it('When a zombie step commits lines it read before another step counted them, then its commit is refused', async () => {
    const scope = newScope();
    const all = lines(scope, [100, 200, -50]);
    await store.insertMissing(scope, all);
    const zombieBalance = await store.balanceForCounting(scope, now());
    const zombieLines = await store.uncounted(scope, 10);
    expect(await store.countStep(scope, now())).toBe(3);
    expect(await store.commitBatch(scope, zombieBalance.batches, zombieLines, now())).toBeNull();
    await expectExact(scope, all);
  });

  it('When a crashed step left a batch pending and no line uncounted, then the sweep finds the scope and clears it', async () => {
    const scope = newScope();
    const all = lines(scope, [400]);
    await store.insertMissing(scope, all);
    const balance = await store.balanceForCounting(scope, now());
    const pending = await store.commitBatch(scope, balance.batches, await store.uncounted(scope, 10), now());
    await store.markCounted(scope, pending?.ids ?? []);
    const found = await store.scopesToCount(new Date(Date.now() + 60_000), 1_000);
    expect(found).toContainEqual(scope);
    await store.countAll(scope, now);
    await expectExact(scope, all);
  });

  it('When a stop fell between a line and its queue entry, then inserting the lines again (the redelivery) queues it, once counted', async () => {
    const scope = newScope();
    const [first, second] = lines(scope, [300, 400]) as [NewBalanceTransaction, NewBalanceTransaction];
    await store.lines.insertOne({ ...first, counted: false });
    expect(await store.insertMissing(scope, [first, second])).toBe(1);
    expect(await store.countAll(scope, now)).toBe(2);
    await expectExact(scope, [first, second]);
  });

  it('When a redelivery queues again a line counted meanwhile, then the counting drops the entry and adds nothing', async () => {
    const scope = newScope();
    const all = lines(scope, [250, -50]);
    await store.insertMissing(scope, all);
    await store.countAll(scope, now);
    // The redelivery read the lines before they were marked counted, and queues them after their entries went.
    await store.queue.insertMany(all.map(queueEntryOf));
    expect(await store.countAll(scope, now)).toBe(0);
    await expectExact(scope, all);
    expect(await store.queue.countDocuments({ organizationId: scope.organizationId })).toBe(0);
  });

  it('When lines are inserted again and many steps count at once while more arrive, then the totals are exact', async () => {
    const scope = newScope();
    const all = lines(
      scope,
      Array.from({ length: 240 }, (_, i) => (i % 5 === 4 ? -(i + 1) : (i + 1) * 3)),
    );
    const batches = [all.slice(0, 80), all.slice(80, 160), all.slice(160)];
    await Promise.all([
      ...batches.map(async (batch) => {
        await store.insertMissing(scope, batch);
        await store.insertMissing(scope, batch); // a replay inserts nothing
        await store.countStep(scope, now());
      }),
      ...Array.from({ length: 8 }, () => store.countAll(scope, now)),
    ]);
    await store.countAll(scope, now);
    await expectExact(scope, all);
    expect(await store.insertMissing(scope, all)).toBe(0);
  });
});

describe('the backfill (migration orders.0002)', () => {
  it('When orders were paid and refunded before the ledger existed, then the step builds their lines once and the balance follows', async () => {
    const organizationId = `org_${suffix}_backfill`;
    const orders = new OrdersStore(db);
    const books = new Books({ orders, books: store, clock: now });
    const at = new Date('2026-01-10T12:00:00.000Z');
    const legacy = (total: number): OrderDocument => {
      const { balanceLines: _marker, ...created } = {
        ...newOrder(
          { items: [{ name: 'Tea', quantity: 1, unitPrice: total }] },
          { scope: { organizationId, mode: 'test' }, now: at },
        ),
        organizationId,
        mode: 'test' as const,
      } as OrderDocument;
      const paid = applyPayment(
        created,
        { paymentId: `pay_${randomBytes(4).toString('hex')}`, amount: total, method: 'card' },
        at,
      ).next;
      if (!paid) throw new Error('expected a payment');
      return paid;
    };
    const refunded = createRefund(
      legacy(900),
      { refundId: `re_test_${randomBytes(8).toString('hex')}`, amount: 250, outcome: 'succeeded' },
      at,
    ).next;
    const docs = [legacy(400), refunded as OrderDocument];
    await db.collection<OrderDocument>(COLLECTIONS.orders).insertMany(docs);

    const runner = () =>
      new MigrationRunner({
        db,
        migrations: orderMigrations({
          backfill: async (order) => {
            await books.backfillOrder(order);
          },
          reserveExternalId: () => Promise.resolve(),
        }),
        logger: createLogger('books-backfill', { level: 'silent' }),
        version: 'test',
      });
    await runner().runOnce();
    expect(await db.collection(COLLECTIONS.orders).countDocuments({ organizationId, balanceLines: true })).toBe(2);
    // Run again (a rollback wrote more old-shape orders, or a replica restarted): nothing is added.
    await db.collection(COLLECTIONS.orders).updateMany({ organizationId }, { $unset: { balanceLines: '' } });
    await runner().runOnce();
    expect(await db.collection(COLLECTIONS.balanceTransactions).countDocuments({ organizationId })).toBe(3);
    expect(await db.collection(COLLECTIONS.balanceQueue).countDocuments({ organizationId })).toBe(3);

    // The sweep counts them once they have waited past the settle margin (its clock a few seconds on).
    const sweep = new Books({ orders, books: store, clock: () => new Date(Date.now() + 5_000) });
    expect(await sweep.countStragglers()).toBeGreaterThanOrEqual(3);
    expect((await store.readBalance({ organizationId, mode: 'test', currency: 'USD' })).oldestUncounted).toBeNull();
    const { balance } = await books.balance({ organizationId, mode: 'test' }, 'USD');
    expect(balance).toMatchObject({ payments: 1300, refunds: 250, net: 1050, count: 3 });
  });
});

/** A paid order of `scope` (one payment of `total`), as the consumer finds it stored. */
function paidOrder(scope: { organizationId: string; mode: 'test' }, paymentId: string, total: number): OrderDocument {
  const created = {
    ...newOrder({ items: [{ name: 'Tea', quantity: 1, unitPrice: total }] }, { scope, now: now() }),
    ...scope,
  } as OrderDocument;
  return applyPayment(created, { paymentId, amount: total, method: 'card' }, now()).next as OrderDocument;
}

/** Books on a client of their own whose commands `counter` counts; closed once `fn` is over. */
async function withCountedBooks(
  fn: (counted: {
    counter: CommandCounter;
    stores: { orders: OrdersStore; books: BalanceStore };
    books: Books;
  }) => Promise<void>,
): Promise<void> {
  const counter = new CommandCounter();
  const client = new MongoClient(inject('engines').mongoUrl, { monitorCommands: true });
  counter.attach(client);
  try {
    const counted = client.db(db.databaseName);
    const stores = { orders: new OrdersStore(counted), books: new BalanceStore(counted) };
    await fn({ counter, stores, books: new Books({ ...stores, clock: now }) });
  } finally {
    await client.close();
  }
}

describe('what the ledger costs per movement (D52), in database commands', () => {
  it('When eight payments of one merchant are recorded at once, then each is counted once, in fewer commands than eight payments each running its own step', async () => {
    await withCountedBooks(async ({ counter, stores, books }) => {
      const run = async (name: string, record: (scope: Scope, order: OrderDocument) => Promise<unknown>) => {
        const scope = { organizationId: `org_${suffix}_together_${name}`, mode: 'test' as const };
        const orders = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => paidOrder(scope, `pay_${name}_${n}`, n * 100));
        await db.collection<OrderDocument>(COLLECTIONS.orders).insertMany(orders);
        const { commands, total } = await counter.during(() => Promise.all(orders.map((o) => record(scope, o))));
        await stores.books.countAll({ ...scope, currency: 'USD' }, now);
        const { balance, oldestUncounted } = await stores.books.readBalance({ ...scope, currency: 'USD' });
        expect(balance).toMatchObject({ payments: 3_600, count: 8, pending: null });
        expect(oldestUncounted).toBeNull();
        return { commands, total };
      };
      const shared = await run('shared', (scope, order) => books.recordOrder(scope, order._id));
      // As each consumer handler counted before: the order read, its lines inserted, a step of its own.
      const alone = await run('alone', async (scope, order) => {
        const lines = balanceLinesOf(order).map((line) => ({ ...line, recordedAt: now() }));
        await stores.books.insertMissing(scope, lines);
        await stores.books.countStep({ ...scope, currency: 'USD' }, now());
      });
      // On the emulator: 54 commands shared (29 reads), 156 alone (110 reads; the order reads not counted there).
      expect(shared.total).toBeLessThan(alone.total);
    });
  });

  it('When an order event brings a payment, then 11 (read the order, its line ids, the balance, the queue, the queued lines; insert the line and its entry; commit, mark, remove the entry, clear); a replay: 2 reads; the balance: 2', async () => {
    await withCountedBooks(async ({ counter, books }) => {
      const organizationId = `org_${suffix}_costs`;
      const scope = { organizationId, mode: 'test' as const };
      const first = paidOrder(scope, 'pay_costs_1', 100);
      const second = paidOrder(scope, 'pay_costs_2', 200);
      await db.collection<OrderDocument>(COLLECTIONS.orders).insertMany([first, second]);
      await books.recordOrder(scope, first._id); // the balance document is made once, by the first line

      const paid = await counter.during(() => books.recordOrder(scope, second._id));
      expect(paid.result).toBe(1);
      expect(paid.commands).toEqual({ find: 5, insert: 2, update: 3, delete: 1 });
      const replay = await counter.during(() => books.recordOrder(scope, second._id));
      expect(replay.result).toBe(0);
      expect(replay.commands).toEqual({ find: 2 });
      const read = await counter.during(() => books.balance(scope, 'USD'));
      expect(read.result.balance).toMatchObject({ payments: 300, count: 2 });
      expect(read.commands).toEqual({ find: 2 });
    });
  });
});
