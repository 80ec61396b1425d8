import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type Db } from '@checkout/mongo';
import type { Mode } from '@checkout/contracts';
import { DeliveriesStore } from '../../src/store/deliveries.store';
import { COLLECTIONS } from '../../src/store/indexes';
import type { AttemptRecord, DeliveryDocument } from '../../src/store/delivery.document';
import { deliveryStats } from '../../src/domain/delivery-stats';
import { engines, uniqueName } from './support';

// D47's delivery chart is summed by the database (a merchant's 10⁶ deliveries are never read into the
// dispatcher's memory): this checks the aggregation's answers on the real engine, hosts, successes, durations,
// the window and the bound on hosts. bench/src/dashboard.ts shows the memory.

let client: MongoClient;
let db: Db;
let store: DeliveriesStore;
const from = new Date('2026-11-23T10:00:00.000Z');
const A = { organizationId: 'org_stats_a', mode: 'test' as Mode };

const attempt = (at: string, statusCode: number | null, durationMs: number, error: string | null = null) =>
  ({ attempt: 1, at: new Date(at), statusCode, durationMs, error, responseSnippet: null }) satisfies AttemptRecord;

let seq = 0;
function delivery(scope: typeof A, url: string, attempts: AttemptRecord[]): DeliveryDocument {
  const updatedAt = attempts.reduce((latest, a) => (a.at > latest ? a.at : latest), new Date(0));
  seq += 1;
  return {
    _id: `dlv_${seq}`,
    ...scope,
    eventId: `evt_${seq}`,
    eventType: 'checkout.session.completed',
    url,
    status: 'succeeded',
    attempts,
    attemptCount: attempts.length,
    nextAttemptAt: null,
    lockedUntil: updatedAt,
    lockOwner: null,
    deadLetterPending: false,
    createdAt: updatedAt,
    updatedAt,
  };
}

beforeAll(async () => {
  client = await MongoClient.connect(engines().mongoUrl, { retryWrites: false });
  db = client.db(uniqueName('stats'));
  store = new DeliveriesStore(db);
});

afterAll(async () => {
  await db?.dropDatabase();
  await client?.close();
});

describe('deliveryStatsSince (D47: the delivery chart, summed in the database)', () => {
  it('When attempts went to hosts written several ways, then each host (lowercased, without userinfo, query or fragment) has its attempts of the window, successes and p95; other tenants and older attempts are left out', async () => {
    await db.collection<DeliveryDocument>(COLLECTIONS.deliveries).insertMany([
      delivery(A, 'https://B.example/hook', [
        attempt('2026-11-24T09:00:00.000Z', 500, 30),
        attempt('2026-11-24T09:01:00.000Z', 200, 10),
      ]),
      delivery(A, 'https://user:secret@b.example/other#x', [attempt('2026-11-24T09:02:00.000Z', 204, 1_234)]),
      delivery(A, 'https://a.example:8443?q=1', [
        attempt('2026-11-22T09:00:00.000Z', 200, 5),
        attempt('2026-11-24T09:00:00.000Z', null, 5_000, 'timed out after 5 s'),
        attempt('2026-11-24T09:05:00.000Z', 200, 99, 'redirect not followed (HTTP 301)'),
      ]),
      // Written before the window: not matched at all.
      delivery(A, 'https://c.example/hook', [attempt('2026-11-22T09:00:00.000Z', 200, 5)]),
      delivery({ ...A, mode: 'live' }, 'https://b.example/hook', [attempt('2026-11-24T09:00:00.000Z', 200, 10)]),
      delivery({ ...A, organizationId: 'org_stats_b' }, 'https://b.example/hook', [
        attempt('2026-11-24T09:00:00.000Z', 200, 10),
      ]),
    ]);
    const stats = deliveryStats(await store.deliveryStatsSince(A, from, 20));
    expect(stats).toEqual([
      { host: 'a.example:8443', attempts: 2, succeeded: 0, p95DurationMs: 5_000 },
      // 10, 30 and 1,234 ms: the p95 is the slowest, rounded down to two significant digits.
      { host: 'b.example', attempts: 3, succeeded: 2, p95DurationMs: 1_200 },
    ]);
  });

  it('When a merchant has attempts to more hosts than the chart shows, then only the hosts with the most attempts come back', async () => {
    const scope = { organizationId: 'org_stats_many', mode: 'test' as Mode };
    await db.collection<DeliveryDocument>(COLLECTIONS.deliveries).insertMany(
      Array.from({ length: 30 }, (_, i) =>
        delivery(
          scope,
          `https://h${String(i).padStart(2, '0')}.example/hook`,
          Array.from({ length: i + 1 }, () => attempt('2026-11-24T09:00:00.000Z', 200, i)),
        ),
      ),
    );
    const totals = await store.deliveryStatsSince(scope, from, 5);
    expect(totals.map((t) => t.host).sort()).toEqual([
      'h25.example',
      'h26.example',
      'h27.example',
      'h28.example',
      'h29.example',
    ]);
    expect(totals.find((t) => t.host === 'h29.example')).toEqual({
      host: 'h29.example',
      attempts: 30,
      succeeded: 30,
      durations: [{ ms: 29, n: 30 }],
    });
  });
});
