import { inSpan } from '@checkout/telemetry';
import { CONSUMER_GROUP_SETTINGS, superviseGroupMember, type ConsumerOptions } from './group-member';
import {
  HANDLER_DEADLINE_MS,
  HandlerFailedError,
  heartbeating,
  withinDeadline,
  type RunningConsumer,
} from './kafkajs-accommodations';
import { consumerSpanOptions, messageContext, parkOnDeadLetter, parseMessage } from './messages';

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
        options.onReceived?.(topic, Date.now() - Number(message.timestamp));
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
