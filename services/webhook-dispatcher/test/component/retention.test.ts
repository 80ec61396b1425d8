import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention, connectMongo, type MongoConnection } from '@checkout/mongo';
import { parseConfig } from '../../src/config';
import { COLLECTIONS } from '../../src/store/indexes';
import { webhookRetentionRules } from '../../src/store/retention';
import { dispatcherEnv, uniqueName } from './support';

// D34 by mode: test-mode events and finished deliveries are kept a week (WEBHOOK_TEST_EVENTS_RETENTION_MS), live ones
// 30 days (WEBHOOK_EVENTS_RETENTION_MS): what every merchant shares is not spent on keeping test traffic. Pending
// deliveries are kept whatever their age; the budgets' daily counts a week past their day. On the real engine, with
// the defaults the service starts with.

const DAY = 24 * 3_600_000;
const now = Date.UTC(2026, 10, 29, 12);
const ago = (days: number) => new Date(now - days * DAY);
let mongo: MongoConnection;

beforeAll(async () => {
  const env = dispatcherEnv('retention');
  mongo = await connectMongo(env.MONGODB_URL ?? '', uniqueName('retention'));
});

afterAll(async () => {
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

describe('Retention by mode (D34)', () => {
  it('When the sweep runs with the default settings, then test mode keeps 7 days, live mode 30, pending deliveries and recent counts stay', async () => {
    const config = parseConfig(dispatcherEnv('retention'));
    const rules = webhookRetentionRules({
      test: config.WEBHOOK_TEST_EVENTS_RETENTION_MS,
      live: config.WEBHOOK_EVENTS_RETENTION_MS,
    });
    const events = mongo.db.collection<{ _id: string; mode: string; createdAt: Date }>(COLLECTIONS.events);
    await events.insertMany([
      { _id: 'evt_test_8d', mode: 'test', createdAt: ago(8) },
      { _id: 'evt_test_6d', mode: 'test', createdAt: ago(6) },
      { _id: 'evt_live_8d', mode: 'live', createdAt: ago(8) },
      { _id: 'evt_live_29d', mode: 'live', createdAt: ago(29) },
      { _id: 'evt_live_31d', mode: 'live', createdAt: ago(31) },
    ]);
    const deliveries = mongo.db.collection<{ _id: string; mode: string; status: string; createdAt: Date }>(
      COLLECTIONS.deliveries,
    );
    await deliveries.insertMany([
      { _id: 'dlv_test_8d_done', mode: 'test', status: 'succeeded', createdAt: ago(8) },
      { _id: 'dlv_test_8d_pending', mode: 'test', status: 'pending', createdAt: ago(8) },
      { _id: 'dlv_test_6d_failed', mode: 'test', status: 'failed', createdAt: ago(6) },
      { _id: 'dlv_live_8d_done', mode: 'live', status: 'failed', createdAt: ago(8) },
      { _id: 'dlv_live_31d_done', mode: 'live', status: 'succeeded', createdAt: ago(31) },
    ]);
    const usage = mongo.db.collection<{ _id: string; dayStart: Date }>(COLLECTIONS.tenantUsage);
    await usage.insertMany([
      { _id: 'org|test|9d', dayStart: ago(9) },
      { _id: 'org|test|2d', dayStart: ago(2) },
    ]);

    await applyRetention(mongo.db, rules, now);

    const ids = async (collection: typeof events | typeof deliveries | typeof usage) =>
      (await collection.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort();
    expect(await ids(events)).toEqual(['evt_live_29d', 'evt_live_8d', 'evt_test_6d']);
    expect(await ids(deliveries)).toEqual(['dlv_live_8d_done', 'dlv_test_6d_failed', 'dlv_test_8d_pending']);
    expect(await ids(usage)).toEqual(['org|test|2d']);
  });
});
