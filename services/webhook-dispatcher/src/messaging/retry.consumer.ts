import type { Logger } from '@checkout/logger';
import {
  runDelayedConsumer,
  type EventProducer,
  type KafkaClient,
  type ParseResult,
  type RunningConsumer,
} from '@checkout/kafka';
import { RetryMessage } from '@checkout/contracts';

export interface RetryConsumerOptions {
  kafka: KafkaClient;
  groupId: string;
  topics: string[];
  logger: Logger;
  clock: () => Date;
  partitionsConsumedConcurrently: number;
  deadLetter: { topic: string; producer: EventProducer };
  /** Hands a due retry to the scheduler; resolves once it is queued (or left to the sweep). */
  onDue: (message: RetryMessage) => Promise<void>;
  /** Called when a crashed consumer has been replaced (kafka_consumer_restarts_total). */
  onRestart: () => void;
}

/** What the consumer does with a received message's JSON; exported for the message fixtures test. */
export function parseRetryMessage(raw: unknown): ParseResult<RetryMessage> {
  const parsed = RetryMessage.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: 'invalid retry message' };
}

/**
 * Reads the retry tiers: each message waits on its partition until notBefore (libs/kafka pauses only that
 * partition), then goes to the scheduler. An invalid message goes to the dead-letter topic.
 */
export function runRetryConsumer(options: RetryConsumerOptions): Promise<RunningConsumer> {
  const { onDue, ...rest } = options;
  return runDelayedConsumer<RetryMessage>({
    ...rest,
    parse: parseRetryMessage,
    dueAt: (message) => new Date(message.notBefore),
    onDue,
  });
}
