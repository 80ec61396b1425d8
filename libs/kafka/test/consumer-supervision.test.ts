import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import {
  createEventProducer,
  createKafka,
  ensureTopics,
  runConsumer,
  type EventProducer,
  type KafkaClient,
  type RunningConsumer,
} from '../src/index';
import { CONSUMER_GROUP_SETTINGS } from '../src/group-member';
import { superviseConsumer } from '../src/kafkajs-accommodations';
import { kafkajsOf } from '../src/kafkajs';
import { engines, isolatedNames, logger } from './support';

// kafkajs gives up on a consumer for good after a crash it deems non-retriable ("Failed to find group
// coordinator" on a busy broker; a TypeError out of a handler) and the service goes on answering ready while
// nothing is consumed. Found by the outage e2e test: a dispatcher whose session-events consumer had crashed
// this way never delivered another webhook. Deadlines are long because the broker-restart tests may restart
// the shared broker while this file runs.

const { prefix } = isolatedNames('supervision');
let kafka: KafkaClient;
let producer: EventProducer;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  const { kafkaBrokers, description } = engines();
  process.stderr.write(`consumer supervision test on: ${description}\n`);
  kafka = createKafka({ brokers: kafkaBrokers, clientId: 'supervision-test', logger });
  await ensureTopics(kafka, [
    { topic: `${prefix}.handler`, numPartitions: 1 },
    { topic: `${prefix}.crash`, numPartitions: 1 },
    { topic: `${prefix}.hang`, numPartitions: 1 },
  ]);
  producer = createEventProducer(kafka);
});

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop()));
  await producer?.disconnect();
});

describe('Consumers that outlive crashes', () => {
  it('When a handler throws a TypeError, then runConsumer retries the message in place and handles it, with no restart', async () => {
    const attempts: string[] = [];
    let restarts = 0;
    running.push(
      await runConsumer<{ id: string }>({
        kafka,
        groupId: `${prefix}.handler-group`,
        topics: [`${prefix}.handler`],
        logger,
        onRestart: () => restarts++,
        parse: (raw) => ({ ok: true, value: raw as { id: string } }),
        handle: async (message) => {
          attempts.push(message.id);
          if (attempts.length === 1) throw new TypeError('fetch failed');
        },
      }),
    );
    await producer.send([
      { topic: `${prefix}.handler`, key: 'k', value: JSON.stringify({ id: 'first' }) },
      { topic: `${prefix}.handler`, key: 'k', value: JSON.stringify({ id: 'second' }) },
    ]);
    await eventually(() => attempts.includes('second'), {
      deadlineMs: 90_000,
      description: 'the message after the failing one',
    });
    expect(attempts).toEqual(['first', 'first', 'second']);
    expect(restarts).toBe(0);
  }, 120_000);

  it('When a handler call never settles, then past the deadline the message is tried again and the partition moves on', async () => {
    const attempts: string[] = [];
    running.push(
      await runConsumer<{ id: string }>({
        kafka,
        groupId: `${prefix}.hang-group`,
        topics: [`${prefix}.hang`],
        logger,
        handlerDeadlineMs: 1_000,
        parse: (raw) => ({ ok: true, value: raw as { id: string } }),
        handle: (message) => {
          attempts.push(message.id);
          // The first call waits forever, as a write on a destroyed socket does (HANDLER_DEADLINE_MS).
          return attempts.length === 1 ? new Promise<void>(() => {}) : Promise.resolve();
        },
      }),
    );
    await producer.send([
      { topic: `${prefix}.hang`, key: 'k', value: JSON.stringify({ id: 'first' }) },
      { topic: `${prefix}.hang`, key: 'k', value: JSON.stringify({ id: 'second' }) },
    ]);
    await eventually(() => attempts.includes('second'), {
      deadlineMs: 90_000,
      description: 'the message after the one whose handler hung',
    });
    expect(attempts).toEqual(['first', 'first', 'second']);
  }, 120_000);

  it('When kafkajs crashes a consumer without restarting it, then the supervisor starts a new one and the uncommitted message is handled', async () => {
    const attempts: string[] = [];
    let crashes = 0;
    let restarts = 0;
    running.push(
      await superviseConsumer({
        logger,
        onRestart: () => restarts++,
        create: () => {
          const consumer = kafkajsOf(kafka).consumer({ groupId: `${prefix}.crash-group`, ...CONSUMER_GROUP_SETTINGS });
          consumer.on(consumer.events.CRASH, ({ payload }) => {
            if (!payload.restart) crashes++;
          });
          return consumer;
        },
        begin: async (consumer) => {
          await consumer.subscribe({ topic: `${prefix}.crash`, fromBeginning: true });
          await consumer.run({
            eachMessage: async ({ message }) => {
              const id = message.value?.toString() ?? '';
              attempts.push(id);
              // Raw kafkajs, no HandlerFailedError: a TypeError is on its "unrecoverable" list.
              if (attempts.length === 1) throw new TypeError('a bug that hits one message once');
            },
          });
        },
      }),
    );
    await producer.send([{ topic: `${prefix}.crash`, key: 'k', value: 'only' }]);
    await eventually(() => attempts.length >= 2, {
      deadlineMs: 90_000,
      description: 'the message handled by the replacement consumer',
    });
    expect(crashes).toBe(1);
    expect(restarts).toBe(1);
    expect(attempts).toEqual(['only', 'only']);
  }, 120_000);
});
