import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { connectMongo, type Collection, type MongoConnection } from '@checkout/mongo';
import {
  OutboxRelay,
  createEventProducer,
  createKafka,
  ensureTopics,
  registerOutboxMetrics,
  type EventProducer,
  type OutboxFields,
} from '../src/index';
import { engines, isolatedNames, logger } from './support';

// Outbox lag, the unpublished count and failed publishes are visible on /metrics. A publish that
// fails after the answer was sent used to be only logged.

interface Aggregate extends OutboxFields {
  _id: string;
}

const { database, prefix } = isolatedNames('outbox_metrics');
const topic = `${prefix}.aggregate-events`;
let mongo: MongoConnection;
let collection: Collection<Aggregate>;
let producer: EventProducer;

/** A producer whose broker refuses every send, as during an outage. */
const refusingProducer: EventProducer = {
  connect: async () => {},
  disconnect: async () => {},
  send: async () => {
    throw new Error('broker unavailable');
  },
};

function relayWith(registry: Registry, eventProducer: EventProducer) {
  return new OutboxRelay<Aggregate>({
    collection,
    producer: eventProducer,
    logger,
    metrics: registerOutboxMetrics(registry, collection),
  });
}

async function sample(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value;
}

beforeAll(async () => {
  const { kafkaBrokers, mongoUrl } = engines();
  mongo = await connectMongo(mongoUrl, database);
  collection = mongo.db.collection<Aggregate>('aggregates');
  await collection.createIndex({ outboxPending: 1 });
  const kafka = createKafka({ brokers: kafkaBrokers, clientId: 'outbox-metrics-test', logger });
  await ensureTopics(kafka, [{ topic, numPartitions: 1 }]);
  producer = createEventProducer(kafka);
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await mongo?.close();
});

describe('Outbox metrics', () => {
  it('When a fast-path publish fails, then it is counted and the waiting event shows as lag; once published, both clear', async () => {
    const writtenAt = new Date(Date.now() - 30_000);
    const written: Aggregate = {
      _id: 'agg_1',
      outbox: [{ eventId: 'evt_1', topic, key: 'agg_1', value: '{}', createdAt: writtenAt }],
      outboxPending: true,
    };
    await collection.insertOne(written);

    const failing = new Registry();
    await expect(relayWith(failing, refusingProducer).publishWritten(written)).rejects.toThrow('broker unavailable');
    expect(await sample(failing, 'outbox_publish_failures_total', { path: 'fast' })).toBe(1);
    expect(await sample(failing, 'outbox_unpublished_events')).toBe(1);
    expect(await sample(failing, 'outbox_oldest_unpublished_age_seconds')).toBeGreaterThanOrEqual(30);

    const working = new Registry();
    expect(await relayWith(working, producer).publishWritten(written)).toBe(1);
    expect(await sample(working, 'outbox_publish_failures_total', { path: 'fast' })).toBeUndefined();
    expect(await sample(working, 'outbox_unpublished_events')).toBe(0);
    expect(await sample(working, 'outbox_oldest_unpublished_age_seconds')).toBe(0);
  });
});
