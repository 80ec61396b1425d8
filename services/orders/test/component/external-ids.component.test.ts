import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createLogger } from '@checkout/logger';
import { MigrationRunner, MongoClient, type Db } from '@checkout/mongo';
import { newId } from '@checkout/contracts';
import type { OrdersApp } from '../../src/app';
import { COLLECTIONS } from '../../src/store/indexes';
import { orderMigrations } from '../../src/store/migrations';
import { OrdersStore } from '../../src/store/orders.store';
import type { OrderDocument } from '../../src/store/order.document';
import { internalCaller, startOrdersApp } from './support';

// D37 by a reservation (order_external_ids), not by a unique index of the orders, so that the orders can be
// sharded by their merchant and id (docs/operations.md, "Shard keys"): one order per externalId however creations
// race, a crash between the reservation and the order converges, and orders of the previous release (no
// reservation) are reserved by migration orders.0003.

const suffix = randomBytes(4).toString('hex');
const organizationId = `org_${suffix}`;
const scope = { 'x-organization-id': organizationId, 'x-mode': 'test' };
const items = [{ name: 'Item', quantity: 1, unitPrice: 500 }];
let app: OrdersApp;
let baseUrl: string;
let client: MongoClient;
let db: Db;

const call = internalCaller(() => baseUrl, scope);
const reservationOf = (externalId: string) =>
  db.collection<{ _id: string; orderId: string }>(COLLECTIONS.orderExternalIds).findOne({
    _id: `${organizationId}/test/${externalId}`,
  });
const ordersWith = (externalId: string) =>
  db.collection<OrderDocument>(COLLECTIONS.orders).find({ organizationId, externalId }).toArray();

beforeAll(async () => {
  const name = `external-ids-${suffix}`;
  ({ app, url: baseUrl } = await startOrdersApp(name));
  client = await new MongoClient(inject('engines').mongoUrl).connect();
  db = client.db(`orders_${name.replaceAll('-', '_')}`);
});

afterAll(async () => {
  await app?.stop();
  await client?.close();
});

describe('externalId reservations (D37)', () => {
  it('When eight creations race for one externalId, then one is created, the others are DUPLICATE_EXTERNAL_ID, and the reservation names the order', async () => {
    const externalId = `race-${suffix}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/internal/orders', { items, externalId })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'DUPLICATE_EXTERNAL_ID')).toBe(true);
    const stored = await ordersWith(externalId);
    expect(stored).toHaveLength(1);
    expect((await reservationOf(externalId))?.orderId).toBe(stored[0]?._id);
    expect(stored[0]?.externalIdReserved).toBe(true);
  });

  it("When a creation crashed between its reservation and its order, then the next creation with that externalId completes the reserved order, under the reservation's id", async () => {
    const externalId = `crashed-${suffix}`;
    const reserved = newId('ord', 'test');
    await new OrdersStore(db).reserveExternalId({ organizationId, mode: 'test' }, externalId, reserved, new Date());
    const retried = await call('POST', '/internal/orders', { items, externalId });
    expect(retried.status).toBe(201);
    expect(retried.body.order.id).toBe(reserved);
    expect((await call('POST', '/internal/orders', { items, externalId })).body.code).toBe('DUPLICATE_EXTERNAL_ID');
    expect(await ordersWith(externalId)).toHaveLength(1);
  });

  it('When a creation with an Idempotency-Key is retried, then the retry answers the same order (its id derived from the key, its reservation)', async () => {
    const externalId = `retried-${suffix}`;
    const headers = { 'idempotency-key': `idem-${suffix}` };
    const first = await call('POST', '/internal/orders', { items, externalId }, { headers });
    const again = await call('POST', '/internal/orders', { items, externalId }, { headers });
    expect(first.status).toBe(201);
    expect(again.body.order.id).toBe(first.body.order.id);
    expect(await ordersWith(externalId)).toHaveLength(1);
  });

  it('When orders of the previous release hold externalIds without a reservation (one name taken by a refused creation), then orders.0003 reserves each for its order, and a new creation is a duplicate', async () => {
    const legacy = (await call('POST', '/internal/orders', { items })).body.order.id as string;
    const externalId = `legacy-${suffix}`;
    // As the previous release stores it: the externalId held by org_mode_uniqueKey only.
    await db
      .collection<OrderDocument>(COLLECTIONS.orders)
      .updateOne(
        { _id: legacy },
        { $set: { externalId, uniqueKey: `ext:${externalId}` }, $unset: { externalIdReserved: '' } },
      );
    // This release's creation meanwhile: reserved, then refused by the old unique index; its reservation names
    // an order never stored.
    const refused = await call('POST', '/internal/orders', { items, externalId });
    expect(refused.body.code).toBe('DUPLICATE_EXTERNAL_ID');
    expect((await reservationOf(externalId))?.orderId).not.toBe(legacy);

    const store = new OrdersStore(db);
    const runner = new MigrationRunner({
      db,
      migrations: orderMigrations({
        backfill: () => Promise.resolve(),
        reserveExternalId: (order) => store.reserveExternalIdOf(order, new Date()),
      }),
      logger: createLogger('external-ids', { level: 'silent' }),
      version: 'test',
    });
    await runner.runOnce();
    expect((await reservationOf(externalId))?.orderId).toBe(legacy);
    expect((await ordersWith(externalId))[0]?.externalIdReserved).toBe(true);
    expect((await call('POST', '/internal/orders', { items, externalId })).body.code).toBe('DUPLICATE_EXTERNAL_ID');
  });
});
