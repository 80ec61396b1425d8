import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { createEventProducer, createKafka, ensureTopics, type EventProducer, type KafkaClient } from '../src/index';
import { SendCounter, readTopic } from '../src/testing';
import { engines, isolatedNames, logger } from './support';

// createEventProducer: sends made while one is in flight go to the broker together as the next request (fewer
// produce requests under concurrency), and a request refused for one caller's message fails only that caller.

const { prefix } = isolatedNames('producer');
const topic = `${prefix}.events`;
let kafka: KafkaClient;
let producer: EventProducer;
const counter = new SendCounter();

beforeAll(async () => {
  kafka = createKafka({ brokers: engines().kafkaBrokers, clientId: 'producer-test', logger });
  await ensureTopics(kafka, [{ topic, numPartitions: 3 }]);
  producer = await counter.watch(async () => createEventProducer(kafka));
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
});

async function topicValues(expected: number): Promise<string[]> {
  const seen: string[] = [];
  const probe = await readTopic({
    kafka,
    topic,
    groupId: `${prefix}.probe-${expected}-${Date.now()}`,
    onMessage: (m) => seen.push(m.value),
  });
  try {
    await eventually(() => seen.length >= expected, {
      deadlineMs: 30_000,
      description: `${expected} messages on the topic`,
    });
    return seen;
  } finally {
    await probe.stop();
  }
}

describe('createEventProducer', () => {
  it('When 30 callers send at once, then every send resolves with its message on the topic, in fewer produce requests than sends', async () => {
    const values = Array.from({ length: 30 }, (_, i) => `together-${i}`);
    const { sends, messages } = await counter.during(() =>
      Promise.all(values.map((value, i) => producer.send([{ topic, key: `k${i}`, value }]))),
    );
    expect(messages).toBe(30);
    expect(sends).toBeLessThan(30);
    expect(new Set(await topicValues(30))).toEqual(new Set(values));
  });

  it('When one caller’s message is refused (too large), then only that caller’s send fails; the others land', async () => {
    const huge = 'x'.repeat(2 * 1024 * 1024);
    const small = Array.from({ length: 5 }, (_, i) => `beside-huge-${i}`);
    // The first send is in flight while the rest queue, so the huge one shares a request with small ones.
    const results = await Promise.allSettled([
      producer.send([{ topic, key: 'first', value: 'first-alone' }]),
      ...small.slice(0, 2).map((value) => producer.send([{ topic, key: value, value }])),
      producer.send([{ topic, key: 'huge', value: huge }]),
      ...small.slice(2).map((value) => producer.send([{ topic, key: value, value }])),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const landed = await topicValues(30 + 6);
    expect(landed).toEqual(expect.arrayContaining(['first-alone', ...small]));
    expect(landed.some((v) => v.length > 1_000)).toBe(false);
  });
});
