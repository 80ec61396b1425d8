import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry, type Histogram } from 'prom-client';
import { eventually } from '@checkout/testing';
import {
  createEventProducer,
  createKafka,
  ensureTopics,
  registerConsumerMetrics,
  runBatchConsumer,
  runConsumer,
  type ConsumerMetrics,
  type EventProducer,
  type KafkaClient,
  type RunningConsumer,
} from '../src/index';
import { engines, isolatedNames, logger } from './support';

// What a consumer reports of its messages on /metrics: how long after its send each reached the group's handler
// (kafka_consumer_message_age_seconds), for the message-at-a-time and the batch runners alike.

const { prefix } = isolatedNames('consumer_metrics');
const topics = { single: `${prefix}.single`, batch: `${prefix}.batch` };
const groups = { single: `${prefix}-single`, batch: `${prefix}-batch` };
let kafka: KafkaClient;
let producer: EventProducer;
let metrics: ConsumerMetrics & { close(): Promise<void> };
const registry = new Registry();
const running: RunningConsumer[] = [];
const handled = { single: 0, batch: 0 };

/** The age histogram's count and sum (seconds) for one group and topic. */
async function ages(group: string, topic: string): Promise<{ count: number; sum: number }> {
  const histogram = registry.getSingleMetric('kafka_consumer_message_age_seconds') as Histogram | undefined;
  const metric = await histogram?.get();
  const value = (name: string) =>
    metric?.values.find((v) => v.metricName === name && v.labels.group === group && v.labels.topic === topic)?.value ??
    0;
  return {
    count: value('kafka_consumer_message_age_seconds_count'),
    sum: value('kafka_consumer_message_age_seconds_sum'),
  };
}

beforeAll(async () => {
  kafka = createKafka({ brokers: engines().kafkaBrokers, clientId: 'consumer-metrics-test', logger });
  await ensureTopics(kafka, [
    { topic: topics.single, numPartitions: 1 },
    { topic: topics.batch, numPartitions: 1 },
  ]);
  producer = createEventProducer(kafka);
  await producer.connect();
  metrics = registerConsumerMetrics(registry, kafka, {
    groups: [
      { groupId: groups.single, topics: [topics.single] },
      { groupId: groups.batch, topics: [topics.batch] },
    ],
  });
  const parse = (raw: unknown) => ({ ok: true as const, value: raw });
  running.push(
    await runConsumer({
      kafka,
      groupId: groups.single,
      topics: [topics.single],
      logger,
      parse,
      ...metrics.hooksFor(groups.single),
      handle: () => {
        handled.single += 1;
        return Promise.resolve();
      },
    }),
    await runBatchConsumer({
      kafka,
      groupId: groups.batch,
      topics: [topics.batch],
      logger,
      parse,
      ...metrics.hooksFor(groups.batch),
      handleBatch: (messages) => {
        handled.batch += messages.length;
        return Promise.resolve({ done: Promise.resolve() });
      },
    }),
  );
});

afterAll(async () => {
  await Promise.all(running.map((consumer) => consumer.stop()));
  await producer?.disconnect();
  await metrics?.close();
});

describe('kafka_consumer_message_age_seconds', () => {
  it('counts each message once as it reaches the handler, by group and topic, aged from its send', async () => {
    const sentAt = Date.now();
    for (const topic of Object.values(topics))
      await producer.send([1, 2, 3].map((n) => ({ topic, key: 'k', value: JSON.stringify({ n }) })));

    await eventually(() => handled.single === 3 && handled.batch === 3, {
      deadlineMs: 30_000,
      description: 'both consumers to handle their three messages',
    });
    const elapsedSeconds = (Date.now() - sentAt) / 1000;
    for (const kind of ['single', 'batch'] as const) {
      const { count, sum } = await ages(groups[kind], topics[kind]);
      expect(count, kind).toBe(3);
      // Aged from the send, not from the epoch (a missing timestamp) nor negative.
      expect(sum, kind).toBeGreaterThanOrEqual(0);
      expect(sum, kind).toBeLessThanOrEqual(3 * elapsedSeconds);
    }
    // Nothing counted under another group's name.
    expect((await ages(groups.single, topics.batch)).count).toBe(0);
  });
});
