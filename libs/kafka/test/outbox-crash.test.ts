import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMongo, scoped, type MongoConnection, type Scope, type ScopedDocument } from '@checkout/mongo';
import { eventually } from '@checkout/testing';
import {
  OutboxRelay,
  createEventProducer,
  createKafka,
  ensureTopics,
  runConsumer,
  type EventProducer,
  type OutboxFields,
  type RunningConsumer,
  type KafkaClient,
} from '../src/index';
import { engines, isolatedNames, logger } from './support';

// Kill the producing process between the write and the publish (and between the publish and the
// mark), restart, and the event still arrives exactly once to an idempotent consumer.

interface Aggregate extends OutboxFields {
  _id: string;
  state: string;
}

/** The consumer's record of an event it handled, keyed by the event id. */
interface HandledEvent extends ScopedDocument {
  _id: string;
}
const SCOPE: Scope = { organizationId: 'org_test', mode: 'test' };

const WRITER = fileURLToPath(new URL('./fixtures/outbox-writer.ts', import.meta.url));
const { database, prefix } = isolatedNames('outbox_crash');
const topic = `${prefix}.aggregate-events`;
let mongo: MongoConnection;
let kafka: KafkaClient;
let producer: EventProducer;
let consumer: RunningConsumer;
const handled: string[] = [];
const received: string[] = [];

function runWriter(
  aggregateId: string,
  eventId: string,
  crashPoint: 'after-write' | 'after-publish',
): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER], {
      env: {
        ...process.env,
        MONGODB_DATABASE: database,
        TOPIC: topic,
        AGGREGATE_ID: aggregateId,
        EVENT_ID: eventId,
        CRASH_POINT: crashPoint,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve(signal) : reject(new Error(`writer exited with ${code}: ${stderr}`)),
    );
  });
}

function restartedRelay(): OutboxRelay<Aggregate> {
  return new OutboxRelay<Aggregate>({
    collection: mongo.db.collection<Aggregate>('aggregates'),
    producer,
    logger,
    sweepGraceMs: 0, // a restarted process: everything left behind is due at once
  });
}

beforeAll(async () => {
  const { kafkaBrokers, mongoUrl, description } = engines();
  process.stderr.write(`outbox crash test on: ${description}\n`);
  mongo = await connectMongo(mongoUrl, database);
  await mongo.db.collection('aggregates').createIndex({ outboxPending: 1 });
  kafka = createKafka({ brokers: kafkaBrokers, clientId: 'outbox-crash-test', logger });
  await ensureTopics(kafka, [{ topic, numPartitions: 3 }]);
  producer = createEventProducer(kafka);
  // Idempotent by what it stores, as the services' consumers are (docs/engineering.md): the event's record is
  // inserted once under its id (libs/mongo's insertOnce), and only the copy that stored it is handled.
  const events = scoped(mongo.db.collection<HandledEvent>('handled_events'), SCOPE);
  consumer = await runConsumer<{ eventId: string }>({
    kafka,
    groupId: `${prefix}.consumer`,
    topics: [topic],
    logger,
    parse: (raw) => {
      const eventId = (raw as { eventId?: unknown }).eventId;
      return typeof eventId === 'string' ? { ok: true, value: { eventId } } : { ok: false, error: 'no eventId' };
    },
    handle: async (message) => {
      received.push(message.eventId);
      if ((await events.insertOnce({ _id: message.eventId })).created) handled.push(message.eventId);
    },
  });
});

afterAll(async () => {
  await consumer?.stop();
  await producer?.disconnect();
  await mongo?.close();
});

describe('Transactional outbox under a crash', () => {
  it('When the writer dies after the write and before the publish, then a restarted relay publishes the event and it is handled once', async () => {
    const eventId = `evt_test_crashAfterWrite${Date.now()}`;
    expect(await runWriter('agg-1', eventId, 'after-write')).toBe('SIGKILL');
    const left = await mongo.db.collection<Aggregate>('aggregates').findOne({ _id: 'agg-1' });
    expect(left).toMatchObject({ state: 'completed', outboxPending: true });
    expect(left?.outbox.map((e) => e.eventId)).toEqual([eventId]);

    const relay = restartedRelay();
    relay.start(); // its first sweep runs at once, as it does when a service starts
    try {
      await eventually(() => handled.includes(eventId), { deadlineMs: 30_000, description: 'the event to be handled' });
      await eventually(
        async () =>
          (await mongo.db.collection<Aggregate>('aggregates').findOne({ _id: 'agg-1' }))?.outboxPending === false,
        { description: 'the outbox to be marked sent' },
      );
    } finally {
      await relay.stop();
    }
    expect(handled.filter((id) => id === eventId)).toHaveLength(1);
  });

  it('When the writer dies after the publish and before the mark, then the event is republished and the idempotent consumer still handles it once', async () => {
    const eventId = `evt_test_crashAfterPublish${Date.now()}`;
    expect(await runWriter('agg-2', eventId, 'after-publish')).toBe('SIGKILL');
    expect((await mongo.db.collection<Aggregate>('aggregates').findOne({ _id: 'agg-2' }))?.outboxPending).toBe(true);

    const relay = restartedRelay();
    expect(await relay.sweep()).toBeGreaterThanOrEqual(1);
    await eventually(() => received.filter((id) => id === eventId).length === 2, {
      deadlineMs: 30_000,
      description: 'both copies to arrive',
    });
    expect(handled.filter((id) => id === eventId)).toHaveLength(1);
    expect((await mongo.db.collection<Aggregate>('aggregates').findOne({ _id: 'agg-2' }))?.outboxPending).toBe(false);
  });
});
