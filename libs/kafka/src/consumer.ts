import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import type { EventProducer } from './producer';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: KafkaMessage['headers'];
}

export interface ConsumerOptions<T> {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  /** Turns the raw JSON into a typed message; a failure is poison and goes to the dead-letter topic. */
  parse: (raw: unknown) => ParseResult<T>;
  handle: (message: T, context: MessageContext) => Promise<void>;
  logger: Logger;
  deadLetter?: { topic: string; producer: EventProducer };
  partitionsConsumedConcurrently?: number;
}

/**
 * Group membership and retry settings every consumer of ours uses: a dead member is noticed within 15 s,
 * and a consumer keeps retrying a broker outage forever rather than giving up and stopping.
 */
export const CONSUMER_GROUP_SETTINGS = {
  sessionTimeout: 15_000,
  heartbeatInterval: 1_000,
  rebalanceTimeout: 20_000,
  retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: Number.MAX_SAFE_INTEGER },
} as const;

export interface RunningConsumer {
  consumer: Consumer;
  stop(): Promise<void>;
}

/**
 * At-least-once consumption (style.md §10): the offset moves on only after `handle` returns. A message
 * that can't be parsed is parked on the dead-letter topic and skipped; a handler that throws (database or
 * broker down) leaves the offset where it is, and kafkajs delivers the message again after a backoff.
 */
export async function runConsumer<T>(options: ConsumerOptions<T>): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  const consumer = options.kafka.consumer({ groupId: options.groupId, ...CONSUMER_GROUP_SETTINGS });
  await consumer.connect();
  for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
  await consumer.run({
    autoCommit: true,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
    eachMessage: async ({ topic, partition, message }) => {
      const context: MessageContext = { topic, partition, offset: message.offset, key: message.key?.toString() ?? null, headers: message.headers };
      const parsed = parseMessage(message, options.parse);
      if (!parsed.ok) {
        log.error({ topic, partition, offset: message.offset, reason: parsed.error }, 'poison message parked on the dead-letter topic');
        if (options.deadLetter) {
          await options.deadLetter.producer.send([
            {
              topic: options.deadLetter.topic,
              key: context.key ?? `${topic}:${partition}:${message.offset}`,
              value: message.value?.toString() ?? '',
              headers: { 'x-original-topic': topic, 'x-failure-reason': parsed.error.slice(0, 500) },
            },
          ]);
        }
        return;
      }
      await options.handle(parsed.value, context);
    },
  });
  return {
    consumer,
    async stop() {
      await consumer.disconnect();
    },
  };
}

function parseMessage<T>(message: KafkaMessage, parse: (raw: unknown) => ParseResult<T>): ParseResult<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(message.value?.toString() ?? '');
  } catch {
    return { ok: false, error: 'value is not JSON' };
  }
  try {
    return parse(raw);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
