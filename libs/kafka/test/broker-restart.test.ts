import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMongo, type MongoConnection } from '@checkout/mongo';
import { eventually, kafkaControl } from '@checkout/testing';
import {
  OutboxRelay,
  appendToOutbox,
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

// A broker restart in the middle of a stream of 1,000 events loses none.

interface Aggregate extends OutboxFields {
  _id: string;
  n: number;
}

const TOTAL = 1_000;
const { database, prefix } = isolatedNames('broker_restart');
const topic = `${prefix}.stream`;
let mongo: MongoConnection;
let kafka: KafkaClient;
let producer: EventProducer;
let consumer: RunningConsumer;
let relay: OutboxRelay<Aggregate>;
const handled = new Set<string>();

beforeAll(async () => {
  const { kafkaBrokers, mongoUrl, description } = engines();
  process.stderr.write(`broker restart test on: ${description}\n`);
  mongo = await connectMongo(mongoUrl, database);
  const collection = mongo.db.collection<Aggregate>('aggregates');
  await collection.createIndex({ outboxPending: 1 });
  kafka = createKafka({ brokers: kafkaBrokers, clientId: 'broker-restart-test', logger });
  await ensureTopics(kafka, [{ topic, numPartitions: 6 }]);
  producer = createEventProducer(kafka);
  relay = new OutboxRelay<Aggregate>({ collection, producer, logger, sweepIntervalMs: 250, batchSize: 200 });
  consumer = await runConsumer<{ eventId: string }>({
    kafka,
    groupId: `${prefix}.consumer`,
    topics: [topic],
    logger,
    partitionsConsumedConcurrently: 6,
    parse: (raw) => ({ ok: true, value: raw as { eventId: string } }),
    // A set of the handled ids: a copy the restart makes the broker deliver again counts once.
    handle: async (message) => {
      handled.add(message.eventId);
    },
  });
});

afterAll(async () => {
  await relay?.stop();
  await consumer?.stop();
  await producer?.disconnect();
  await mongo?.close();
});

describe('A broker restart in the middle of a stream', () => {
  it(`When the broker restarts while ${TOTAL} events are being written and published, then every event is handled`, async () => {
    const collection = mongo.db.collection<Aggregate>('aggregates');
    relay.start();
    let restarted: Promise<void> | undefined;
    for (let n = 0; n < TOTAL; n++) {
      const id = `agg-${n}`;
      const eventId = `evt_test_stream${String(n).padStart(5, '0')}`;
      const doc = appendToOutbox<Aggregate>(
        { _id: id, n, outbox: [], outboxPending: false },
        { eventId, topic, key: id, value: JSON.stringify({ eventId }), createdAt: new Date() },
      );
      await collection.insertOne(doc);
      // The fast path, as services do after a write; failures are left to the relay's sweep.
      void relay.publishWritten(doc).catch(() => {});
      if (n === TOTAL / 4) {
        await eventually(() => handled.size > 0, { deadlineMs: 30_000, description: 'the stream to be flowing' });
        restarted = kafkaControl().restartKafka();
      }
    }
    await restarted;
    // Generous: another test file may restart the same broker meanwhile, and recovery runs on 2 shared cores.
    await eventually(() => handled.size === TOTAL, {
      deadlineMs: 180_000,
      intervalMs: 250,
      description: `all ${TOTAL} events (have ${handled.size})`,
    });
    expect(handled.size).toBe(TOTAL);
    await eventually(async () => (await collection.countDocuments({ outboxPending: true })) === 0, {
      deadlineMs: 30_000,
      description: 'every outbox entry marked sent',
    });
  }, 260_000);
});
