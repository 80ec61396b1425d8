import { inSpan } from '@checkout/telemetry';
import { CONSUMER_GROUP_SETTINGS, superviseGroupMember, type ConsumerOptions } from './group-member';
import { HandlerFailedError, heartbeating, type RunningConsumer } from './kafkajs-accommodations';
import { consumerSpanOptions, messageContext, parkOnDeadLetter, parseMessage } from './messages';

export interface DelayedConsumerOptions<T> extends Omit<ConsumerOptions<T>, 'handle' | 'fromBeginning'> {
  /** When a message may be handled; one that is not due yet holds back its partition (only that one). */
  dueAt: (message: T) => Date;
  /** Handles a due message; the offset moves on when it resolves. */
  onDue: (message: T) => Promise<void>;
  clock: () => Date;
}

/**
 * Reads topics whose messages wait for a time (the webhook retry tiers). A message that is not due yet pauses
 * its partition and a timer resumes it when due; its offset is not resolved, so it is fetched again then.
 * Nothing sleeps inside the handler, so other partitions and topics keep flowing. Poison messages go to the
 * dead-letter topic; a failing onDue is retried in place (at least once).
 */
export async function runDelayedConsumer<T>(options: DelayedConsumerOptions<T>): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  const timers = new Set<NodeJS.Timeout>();
  const waiting = new Set<string>();
  const clearWaits = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    waiting.clear();
  };
  // A resumed partition is fetched on the next fetch round; a short long-poll keeps that within ~200 ms instead
  // of kafkajs' default 5 s (with every partition paused kafkajs idles for this long, too).
  const running = await superviseGroupMember(
    { ...options, fromBeginning: true },
    log,
    { maxWaitTimeInMs: 200 },
    async (consumer) => {
      // A replacement consumer starts with every partition resumed; the old one's timers are moot.
      clearWaits();
      await consumer.run({
        autoCommit: true,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
        eachBatch: async ({ batch, resolveOffset, heartbeat, pause, isRunning, isStale }) => {
          const partitionKey = `${batch.topic}:${batch.partition}`;
          if (waiting.has(partitionKey)) return;
          for (const message of batch.messages) {
            if (!isRunning() || isStale()) return;
            const parsed = parseMessage(message, options.parse);
            if (!parsed.ok) {
              await parkOnDeadLetter(
                log,
                options.deadLetter,
                { topic: batch.topic, partition: batch.partition, message },
                parsed.error,
              );
              resolveOffset(message.offset);
              continue;
            }
            const waitMs = options.dueAt(parsed.value).getTime() - options.clock().getTime();
            if (waitMs > 0) {
              const resume = pause();
              waiting.add(partitionKey);
              const timer = setTimeout(() => {
                timers.delete(timer);
                waiting.delete(partitionKey);
                resume();
              }, waitMs);
              timers.add(timer);
              return;
            }
            const context = messageContext(batch.topic, batch.partition, message);
            try {
              await inSpan(`${batch.topic} process`, consumerSpanOptions(options.groupId, context), () =>
                heartbeating(heartbeat, CONSUMER_GROUP_SETTINGS.heartbeatInterval, () => options.onDue(parsed.value)),
              );
            } catch (err) {
              throw new HandlerFailedError(err);
            }
            resolveOffset(message.offset);
            await heartbeat();
          }
        },
      });
    },
  );
  return {
    async stop() {
      clearWaits();
      await running.stop();
    },
  };
}
