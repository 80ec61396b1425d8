import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMongo, type Collection, type MongoConnection } from '@checkout/mongo';
import { inSpan } from '@checkout/telemetry';
import { collectSpans, type FinishedSpan } from '@checkout/telemetry/testing';
import { eventually } from '@checkout/testing';
import {
  OutboxRelay,
  appendToOutbox,
  createEventProducer,
  outboxPush,
  createKafka,
  ensureTopics,
  runBatchConsumer,
  runConsumer,
  type EventProducer,
  type KafkaClient,
  type MessageContext,
  type OutboxFields,
  type RunningConsumer,
} from '../src/index';
import { engines, isolatedNames, logger } from './support';

// W3C trace context across Kafka, on the real broker and database (docs/operations.md, "Traces"): an outbox
// entry keeps the trace of the request that wrote it, the relay's publish continues it (the sweep's too, after a
// crash between write and publish), the message carries it in its headers, and each consumer's span is a child
// of the producer's span, one per message in a batch consumer too.

interface Aggregate extends OutboxFields {
  _id: string;
}

const { database, prefix } = isolatedNames('kafka_tracing');
const topic = `${prefix}.traced-events`;
let mongo: MongoConnection;
let collection: Collection<Aggregate>;
let kafka: KafkaClient;
let producer: EventProducer;
let collector: ReturnType<typeof collectSpans>;
const consumers: RunningConsumer[] = [];

beforeAll(async () => {
  collector = collectSpans('kafka-test');
  const { kafkaBrokers, mongoUrl } = engines();
  mongo = await connectMongo(mongoUrl, database);
  collection = mongo.db.collection<Aggregate>('aggregates');
  kafka = createKafka({ brokers: kafkaBrokers, clientId: `${prefix}-test`, logger });
  await ensureTopics(kafka, [{ topic, numPartitions: 2 }]);
  producer = createEventProducer(kafka);
  await producer.connect();
}, 120_000);

afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await producer?.disconnect();
  await mongo?.close();
  await collector?.shutdown();
});

const entry = (eventId: string) => ({
  eventId,
  topic,
  key: eventId,
  value: JSON.stringify({ eventId }),
  createdAt: new Date(),
});

/** Ended spans of the collector, after the batch processor has exported them. */
async function spansWhere(predicate: (span: FinishedSpan) => boolean, count = 1): Promise<FinishedSpan[]> {
  return eventually(
    async () => {
      await collector.flush();
      const found = collector.spans().filter(predicate);
      return found.length >= count ? found : undefined;
    },
    { deadlineMs: 30_000, description: 'spans exported' },
  );
}

describe('Trace context across Kafka', () => {
  const handled = new Map<string, MessageContext>();

  beforeAll(async () => {
    consumers.push(
      await runConsumer<{ eventId: string }>({
        kafka,
        groupId: `${prefix}.one-at-a-time`,
        topics: [topic],
        logger,
        parse: (raw) => ({ ok: true, value: raw as { eventId: string } }),
        handle: async (message, context) => {
          // Work inside the handler joins the consumer span's trace.
          await inSpan('handler work', { kind: 'internal' }, async () => {});
          handled.set(message.eventId, context);
        },
      }),
      await runBatchConsumer<{ eventId: string }>({
        kafka,
        groupId: `${prefix}.batches`,
        topics: [topic],
        logger,
        parse: (raw) => ({ ok: true, value: raw as { eventId: string } }),
        handleBatch: async (messages) => {
          for (const message of messages) handled.set(`batch:${message.value.eventId}`, message.context);
          return { done: Promise.resolve() };
        },
      }),
    );
  }, 60_000);

  it("When a request writes an event and the relay publishes it, then the publish, the message headers and both consumers continue the request's trace", async () => {
    const relay = new OutboxRelay<Aggregate>({ collection, producer, logger });
    let requestSpan = { traceId: '', spanId: '' };
    await inSpan('POST /things', { kind: 'server', parent: 'none' }, async (span) => {
      const [, traceId, spanId] = span.carrier()!.traceparent.split('-');
      requestSpan = { traceId: traceId!, spanId: spanId! };
      const doc = appendToOutbox<Aggregate>({ _id: 'agg_fast', outbox: [], outboxPending: false }, entry('evt_fast'));
      expect(doc.outbox[0]?.trace?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      await collection.insertOne(doc);
      await relay.publishWritten(doc);
    });

    const [publish] = await spansWhere((s) => s.name === `${topic} publish` && s.traceId === requestSpan.traceId);
    expect(publish!).toMatchObject({ kind: 'producer', parentSpanId: requestSpan.spanId });
    expect(publish!.attributes).toMatchObject({
      'messaging.destination.name': topic,
      'messaging.message.id': 'evt_fast',
    });

    await eventually(() => handled.has('evt_fast') && handled.has('batch:evt_fast'), {
      deadlineMs: 30_000,
      description: 'both consumers handled the event',
    });
    expect(handled.get('evt_fast')?.headers.traceparent).toBe(`00-${requestSpan.traceId}-${publish!.spanId}-01`);
    const processed = await spansWhere((s) => s.name === `${topic} process` && s.traceId === requestSpan.traceId, 2);
    for (const span of processed) expect(span).toMatchObject({ kind: 'consumer', parentSpanId: publish!.spanId });
    const groups = processed.map((span) => span.attributes['messaging.consumer.group.name']).sort();
    expect(groups).toEqual([`${prefix}.batches`, `${prefix}.one-at-a-time`]);
    // The batch consumer hands each message its own span's context, to store with the work it leads to.
    const batchSpan = processed.find(
      (span) => span.attributes['messaging.consumer.group.name'] === `${prefix}.batches`,
    );
    expect(handled.get('batch:evt_fast')?.trace?.traceparent).toBe(`00-${requestSpan.traceId}-${batchSpan!.spanId}-01`);
    const [work] = await spansWhere((s) => s.name === 'handler work' && s.traceId === requestSpan.traceId);
    const oneAtATime = processed.find((span) => span !== batchSpan);
    expect(work!.parentSpanId).toBe(oneAtATime!.spanId);
  });

  it("When the writer died before publishing, then the sweep, in no request, publishes the event in the writer's trace", async () => {
    let written = { traceId: '', spanId: '' };
    await inSpan('POST /things (then the pod dies)', { kind: 'server', parent: 'none' }, async (span) => {
      const [, traceId, spanId] = span.carrier()!.traceparent.split('-');
      written = { traceId: traceId!, spanId: spanId! };
      await collection.insertOne(
        appendToOutbox<Aggregate>({ _id: 'agg_crash', outbox: [], outboxPending: false }, entry('evt_crash')),
      );
    });
    // Another process's relay, later, outside any request.
    const sweeper = new OutboxRelay<Aggregate>({ collection, producer, logger, sweepGraceMs: 0 });
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
    const [publish] = await spansWhere((s) => s.name === `${topic} publish` && s.traceId === written.traceId);
    expect(publish!.parentSpanId).toBe(written.spanId);
    await eventually(() => handled.has('evt_crash'), { deadlineMs: 30_000, description: 'the swept event consumed' });
    expect(handled.get('evt_crash')?.headers.traceparent).toBe(`00-${written.traceId}-${publish!.spanId}-01`);
  });

  it("When a conditional update records the event (outboxPush), then the entry keeps the writer's trace and its publish continues it", async () => {
    await collection.insertOne({ _id: 'agg_update', outbox: [], outboxPending: false });
    let written = { traceId: '', spanId: '' };
    let doc: Aggregate | null = null;
    await inSpan('POST /things/agg_update/complete', { kind: 'server', parent: 'none' }, async (span) => {
      const [, traceId, spanId] = span.carrier()!.traceparent.split('-');
      written = { traceId: traceId!, spanId: spanId! };
      doc = await collection.findOneAndUpdate(
        { _id: 'agg_update', outboxPending: false },
        outboxPush(entry('evt_update')),
        {
          returnDocument: 'after',
        },
      );
    });
    expect(doc!.outbox[0]?.trace?.traceparent).toBe(`00-${written.traceId}-${written.spanId}-01`);
    await new OutboxRelay<Aggregate>({ collection, producer, logger }).publishWritten(doc!);
    const [publish] = await spansWhere((s) => s.name === `${topic} publish` && s.traceId === written.traceId);
    expect(publish!.parentSpanId).toBe(written.spanId);
  });
});
