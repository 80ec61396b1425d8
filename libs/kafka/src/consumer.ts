import type { Logger } from 'pino';
import { inSpan } from '@checkout/telemetry';
import type { KafkaClient } from './client';
import { CONSUMER_GROUP_SETTINGS, superviseGroupMember } from './group-member';
import {
  HANDLER_DEADLINE_MS,
  HandlerFailedError,
  heartbeating,
  withinDeadline,
  type RunningConsumer,
} from './kafkajs-accommodations';
import {
  consumerSpanOptions,
  messageContext,
  parkOnDeadLetter,
  parseMessage,
  type DeadLetter,
  type MessageContext,
  type ParseResult,
} from './messages';

export { HandlerFailedError, type RunningConsumer } from './kafkajs-accommodations';
export type { MessageContext, ParseResult, ReceivedMessage } from './messages';
export { runBatchConsumer, type BatchConsumerOptions } from './batch-consumer';
export { runDelayedConsumer, type DelayedConsumerOptions } from './delayed-consumer';

export interface ConsumerOptions<T> {
  kafka: KafkaClient;
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  /** Turns the raw JSON into a typed message; a failure is poison and goes to the dead-letter topic. */
  parse: (raw: unknown) => ParseResult<T>;
  handle: (message: T, context: MessageContext) => Promise<void>;
  logger: Logger;
  deadLetter?: DeadLetter;
  partitionsConsumedConcurrently?: number;
  /** Called when a crashed consumer has been replaced (see superviseConsumer). */
  onRestart?: () => void;
  /** How long one handler call may take before it counts as failed and the message is tried again (default 60 s). */
  handlerDeadlineMs?: number;
}

/**
 * At-least-once consumption: the offset moves on only after `handle` returns. A message
 * that can't be parsed is parked on the dead-letter topic and skipped; a handler that throws (database or
 * broker down) leaves the offset where it is, and kafkajs delivers the message again after a backoff.
 */
export async function runConsumer<T>(options: ConsumerOptions<T>): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  return superviseGroupMember(options, log, {}, (consumer) =>
    consumer.run({
      autoCommit: true,
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        const context = messageContext(topic, partition, message);
        const parsed = parseMessage(message, options.parse);
        if (!parsed.ok) {
          await parkOnDeadLetter(log, options.deadLetter, { topic, partition, message }, parsed.error);
          return;
        }
        try {
          await inSpan(`${topic} process`, consumerSpanOptions(options.groupId, context), () =>
            heartbeating(heartbeat, CONSUMER_GROUP_SETTINGS.heartbeatInterval, () =>
              withinDeadline(options.handle(parsed.value, context), options.handlerDeadlineMs ?? HANDLER_DEADLINE_MS),
            ),
          );
        } catch (err) {
          throw new HandlerFailedError(err);
        }
      },
    }),
  );
}
