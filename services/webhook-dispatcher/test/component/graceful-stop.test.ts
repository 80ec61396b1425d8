import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from '@checkout/mongo';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import type { SessionEventV1 } from '@checkout/contracts';
import {
  TestProducer,
  buildSessionEvent,
  dispatcherEnv,
  dropDatabase,
  sessionEventsTopic,
  startDispatcher,
  testKafka,
  type RunningDispatcher,
} from './support';

// Rolling deploys: a dispatcher that stops with attempts queued gives back their holds, so another
// replica's recovery sweep takes them at its next round. Before, they stayed held by the stopped process until
// WEBHOOK_CLAIM_TTL_MS lapsed (here 60 s, longer than this test waits for them).

const EVENTS = 5;
const CLAIM_TTL_MS = 60_000;

let receiver: WebhookReceiver;
let producer: TestProducer;
let env: Record<string, string>;
let first: RunningDispatcher | undefined;
let second: RunningDispatcher | undefined;
let mongo: MongoClient;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  producer = await TestProducer.connect(testKafka());
  // One partition and one attempt at a time for the host: the first attempt hangs, the other four queue.
  env = dispatcherEnv('graceful_stop', {
    SESSION_EVENTS_PARTITIONS: '1',
    WEBHOOK_MAX_CONCURRENCY_PER_HOST: '1',
    WEBHOOK_CLAIM_TTL_MS: String(CLAIM_TTL_MS),
    SHUTDOWN_GRACE_MS: '500',
  });
  mongo = await new MongoClient(env.MONGODB_URL as string).connect();
});

afterAll(async () => {
  await producer?.disconnect().catch(() => {});
  await first?.stop().catch(() => {});
  await second?.stop();
  if (second) await dropDatabase(second.config);
  await mongo?.close();
  await receiver?.close();
});

describe('A dispatcher that stops with attempts queued', () => {
  it('When it stops, then the queued deliveries are no longer held by it, and another replica delivers them long before their holds would have lapsed', async () => {
    receiver.answer('/hook', ANSWER.hang);
    first = await startDispatcher(env);
    const events: SessionEventV1[] = Array.from({ length: EVENTS }, () =>
      buildSessionEvent({ callbackUrl: receiver.url('/hook') }),
    );
    await producer.sendEvents(sessionEventsTopic(first.config), events);
    await eventually(() => receiver.deliveries('/hook').length === 1, {
      deadlineMs: 20_000,
      description: 'the first attempt in flight',
    });
    const deliveries = mongo
      .db(first.config.MONGODB_DATABASE)
      .collection<{ _id: string; eventId: string; attemptCount: number; lockOwner: string | null; status: string }>(
        'deliveries',
      );
    await eventually(
      async () => (await deliveries.countDocuments({ attemptCount: 0, lockOwner: { $ne: null } })) === EVENTS,
      { deadlineMs: 20_000, description: `all ${EVENTS} deliveries stored, held` },
    );

    await first.stop();
    first = undefined;
    const inFlight = String(receiver.deliveries('/hook')[0]?.headers['x-service-event-id']);
    const queued = events.map((e) => e.eventId).filter((id) => id !== inFlight);
    const queuedNow = await deliveries.find({ eventId: { $in: queued } }).toArray();
    expect(queuedNow.map((d) => [d.attemptCount, d.lockOwner])).toEqual(queued.map(() => [0, null]));

    // Another replica (same database, topics and group); its recovery sweep takes what was given back.
    receiver.answer('/hook', ANSWER.ok);
    second = await startDispatcher(env);
    await eventually(
      async () =>
        (await deliveries.countDocuments({ eventId: { $in: queued }, status: 'succeeded' })) === queued.length,
      { deadlineMs: CLAIM_TTL_MS / 3, description: 'the queued deliveries delivered by the other replica' },
    );
    // Each queued one sent once, by the other replica. (The attempt in flight at stop was cut; recorded as failed,
    // it may be retried too, as its retry policy says.)
    const sentAfterStop = receiver
      .deliveries('/hook')
      .slice(1)
      .map((r) => String(r.headers['x-service-event-id']));
    expect(queued.map((id) => sentAfterStop.filter((sent) => sent === id).length)).toEqual(queued.map(() => 1));
  });
});
