import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type {} from '@checkout/testing';
import { applyRetention, connectMongo, type MongoConnection } from '../src/index';

// Processed-event records and webhook events with their attempts have a retention, applied by a
// sweep on the real engine.

const DAY = 24 * 60 * 60 * 1000;
let mongo: MongoConnection;

beforeAll(async () => {
  mongo = await connectMongo(inject('engines').mongoUrl, `retention_${randomBytes(4).toString('hex')}`);
});

afterAll(async () => {
  await mongo?.close();
});

describe('Retention sweep', () => {
  it('deletes what is older than its rule keeps, and only what its filter allows', async () => {
    const now = Date.UTC(2026, 10, 23);
    const processed = mongo.db.collection<{ _id: string; processedAt: Date }>('processed_events_test');
    await processed.insertMany([
      { _id: 'evt_old', processedAt: new Date(now - 15 * DAY) },
      { _id: 'evt_recent', processedAt: new Date(now - 13 * DAY) },
    ]);
    const deliveries = mongo.db.collection<{ _id: string; status: string; createdAt: Date }>('deliveries');
    await deliveries.insertMany([
      { _id: 'dlv_old_done', status: 'succeeded', createdAt: new Date(now - 31 * DAY) },
      { _id: 'dlv_old_pending', status: 'pending', createdAt: new Date(now - 31 * DAY) },
      { _id: 'dlv_recent', status: 'failed', createdAt: new Date(now - DAY) },
    ]);

    const deleted = await applyRetention(
      mongo.db,
      [
        { collection: 'processed_events_test', field: 'processedAt', keepMs: 14 * DAY },
        { collection: 'deliveries', field: 'createdAt', keepMs: 30 * DAY, where: { status: { $ne: 'pending' } } },
      ],
      now,
    );

    expect(deleted).toEqual({ processed_events_test: 1, deliveries: 1 });
    expect((await processed.find().toArray()).map((d) => d._id)).toEqual(['evt_recent']);
    expect((await deliveries.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([
      'dlv_old_pending',
      'dlv_recent',
    ]);
  });
});
