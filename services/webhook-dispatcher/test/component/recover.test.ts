import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from '@checkout/mongo';
import { CommandCounter } from '@checkout/mongo/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { newId, type Mode } from '@checkout/contracts';
import { COLLECTIONS } from '../../src/store/indexes';
import type { DeliveryDocument } from '../../src/store/delivery.document';
import type { EventDocument } from '../../src/store/event.document';
import { internalHeaders, startDispatcherFixture, type DispatcherFixture } from './support';

// POST /events/recover (D44) with many failed deliveries: they are read a page at a time (never the
// whole 14 days at once), those recovered before are left out by the query itself, and a second recovery of the
// same organization and mode while one runs is told so (409 RECOVERY_IN_PROGRESS) instead of doing the work twice.

const FAILED = 450;
const counter = new CommandCounter();
let fixture: DispatcherFixture;
let client: MongoClient;
let db: Db;
const scope = { organizationId: `org_recover_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };

/** Seeds `count` events of `scope`, each with one delivery that failed a minute ago, to the fixture's receiver. */
async function seedFailed(count: number, target: Db = db, into: DispatcherFixture = fixture): Promise<string[]> {
  const failedAt = new Date(Date.now() - 60_000);
  const events: EventDocument[] = [];
  const deliveries: DeliveryDocument[] = [];
  for (let i = 0; i < count; i += 1) {
    const eventId = newId('evt', scope.mode);
    const callbackUrl = into.receiver.url('/recovered');
    events.push({
      _id: eventId,
      ...scope,
      type: 'checkout.session.completed',
      sessionId: newId('cs', scope.mode),
      createdAt: failedAt,
      body: JSON.stringify({ id: eventId }),
      callbackUrl,
      initialDeliveryId: null,
      recordedAt: failedAt,
    });
    deliveries.push({
      _id: newId('dlv', scope.mode),
      ...scope,
      eventId,
      eventType: 'checkout.session.completed',
      url: callbackUrl,
      status: 'failed',
      attempts: [
        { attempt: 1, at: failedAt, statusCode: 500, durationMs: 3, error: 'HTTP 500', responseSnippet: null },
      ],
      attemptCount: 1,
      nextAttemptAt: null,
      lockedUntil: failedAt,
      lockOwner: null,
      deadLetterPending: false,
      createdAt: failedAt,
      updatedAt: failedAt,
    });
  }
  for (let i = 0; i < count; i += 1_000) {
    await target.collection<EventDocument>(COLLECTIONS.events).insertMany(events.slice(i, i + 1_000));
    await target.collection<DeliveryDocument>(COLLECTIONS.deliveries).insertMany(deliveries.slice(i, i + 1_000));
  }
  return events.map((e) => e._id);
}

async function recover(
  since: Date,
  on: DispatcherFixture = fixture,
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const response = await fetch(`${on.dispatcher.url}/internal/events/recover`, {
    method: 'POST',
    headers: { ...internalHeaders(scope), 'content-type': 'application/json' },
    body: JSON.stringify({ since: since.toISOString() }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get('retry-after'),
  };
}

beforeAll(async () => {
  fixture = await startDispatcherFixture('recover', { SWEEPERS_ENABLED: 'false' }, { commandCounter: counter });
  client = new MongoClient(fixture.dispatcher.config.MONGODB_URL);
  await client.connect();
  db = client.db(fixture.dispatcher.config.MONGODB_DATABASE);
});

afterAll(async () => {
  await client?.close();
  await fixture?.stop();
});

describe('POST /internal/events/recover with many failed deliveries (D44)', () => {
  it(`When ${FAILED} deliveries failed, then each gets one new delivery, read ${FAILED} at most 200 at a time, and a second recovery finds none`, async () => {
    const eventIds = await seedFailed(FAILED);
    const since = new Date(Date.now() - 5 * 60_000);
    const first = await counter.during(() => recover(since));
    expect(first.result).toMatchObject({ status: 202, body: { recovering: FAILED } });
    // Pages of at most 200 failed deliveries, each with one read of their events: 3 + 3 finds, not one per delivery.
    const finds = first.commands.find ?? 0;
    expect(finds).toBeLessThanOrEqual(2 * Math.ceil(FAILED / 200) + 2);

    await eventually(
      () =>
        new Set(fixture.receiver.deliveries('/recovered').map((r) => String(r.headers['x-service-event-id']))).size ===
        FAILED,
      {
        deadlineMs: 60_000,
        description: 'every recovered delivery attempted',
      },
    );
    expect(
      new Set(fixture.receiver.deliveries('/recovered').map((r) => String(r.headers['x-service-event-id']))),
    ).toEqual(new Set(eventIds));

    const second = await counter.during(() => recover(since));
    expect(second.result).toMatchObject({ status: 202, body: { recovering: 0 } });
    // Those recovered before are left out by the query: one page read, and the recovery's lease taken and given back.
    expect(second.commands).toEqual({ find: 1, insert: 1, delete: 1 });
  });

  it('When a recovery of the same organization and mode is running, then another is 409 RECOVERY_IN_PROGRESS with Retry-After, and once it ends recovery works again', async () => {
    // A recovery running on another replica holds this lease for as long as it runs.
    const leases = db.collection<{ _id: string; owner: string; expiresAt: Date }>('leases');
    const key = `recover:${scope.mode}:${scope.organizationId}`;
    await leases.insertOne({ _id: key, owner: 'another-replica', expiresAt: new Date(Date.now() + 60_000) });
    const refused = await recover(new Date(Date.now() - 60_000));
    expect(refused).toMatchObject({ status: 409, body: { code: 'RECOVERY_IN_PROGRESS' }, retryAfter: '5' });
    // Another organization is not held up by it.
    const other = await fetch(`${fixture.dispatcher.url}/internal/events/recover`, {
      method: 'POST',
      headers: {
        ...internalHeaders({ organizationId: `${scope.organizationId}_other`, mode: scope.mode }),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ since: new Date(Date.now() - 60_000).toISOString() }),
    });
    expect(other.status).toBe(202);
    await leases.deleteOne({ _id: key });
    expect((await recover(new Date(Date.now() - 60_000))).status).toBe(202);
  });

  it('When a recovery runs longer than its lease, then the lease is renewed while it runs: a second recovery meanwhile is still 409', async () => {
    // A lease of 1.5 s (120 s in production) and more failed deliveries than a recovery makes in that time. How
    // many that is depends on the machine: a recovery that ends sooner proves nothing, so the next try seeds twice
    // as many (those already recovered are left out by the query, so each try counts only its own).
    const LEASE_MS = 1_500;
    const long = await startDispatcherFixture(
      'recover_lease',
      { SWEEPERS_ENABLED: 'false' },
      { recoveryLeaseMs: LEASE_MS },
    );
    const longClient = new MongoClient(long.dispatcher.config.MONGODB_URL);
    try {
      await longClient.connect();
      const longDb = longClient.db(long.dispatcher.config.MONGODB_DATABASE);
      const since = new Date(Date.now() - 5 * 60_000);
      let outlasted = false;
      for (let count = 400; !outlasted && count <= 6_400; count *= 2) {
        await seedFailed(count, longDb, long);
        const started = Date.now();
        let finished = false;
        const first = recover(since, long).finally(() => {
          finished = true;
        });
        await eventually(() => finished || Date.now() - started > 2 * LEASE_MS, {
          deadlineMs: 10_000,
          description: 'two lease lengths since the recovery started, or its end',
        });
        outlasted = !finished;
        if (outlasted) {
          // Before, the lease had expired by now and this second recovery ran beside the first, finding some of
          // its deliveries still failed. A 202 that finds none means the first ended (and gave the lease back)
          // between the check above and the second's arrival: that try proves nothing, and the next seeds more.
          const second = await recover(since, long);
          if (second.status === 202 && second.body.recovering === 0) outlasted = false;
          else expect(second).toMatchObject({ status: 409, body: { code: 'RECOVERY_IN_PROGRESS' } });
        }
        expect((await first).body).toEqual({ recovering: count });
      }
      expect(outlasted, 'a recovery of 6,400 failed deliveries outlasted two lease lengths').toBe(true);
      // Given back when done.
      expect((await recover(since, long)).body).toEqual({ recovering: 0 });
    } finally {
      await longClient.close();
      await long.stop();
    }
  }, 180_000);
});
