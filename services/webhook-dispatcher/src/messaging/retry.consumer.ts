import type { Kafka } from 'kafkajs';
import type { Logger } from '@checkout/logger';
import { CONSUMER_GROUP_SETTINGS, HandlerFailedError, superviseConsumer, type EventProducer, type RunningConsumer } from '@checkout/kafka';
import { RetryMessage } from './webhook-messages';

export interface RetryConsumerOptions {
  kafka: Kafka;
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

/**
 * Reads the retry tiers. A message that is not due yet pauses its partition (only that one) and a timer
 * resumes it at notBefore; its offset is not resolved, so it is fetched again then. Nothing sleeps inside the
 * handler, so other partitions and tiers keep flowing.
 */
export async function runRetryConsumer(options: RetryConsumerOptions): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  const timers = new Set<NodeJS.Timeout>();
  const waiting = new Set<string>();
  const clearWaits = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    waiting.clear();
  };
  const running = await superviseConsumer({
    logger: log,
    onRestart: options.onRestart,
    create: () =>
      options.kafka.consumer({
        groupId: options.groupId,
        ...CONSUMER_GROUP_SETTINGS,
        // A resumed partition is fetched on the next fetch round; a short long-poll keeps that within ~200 ms
        // instead of kafkajs' default 5 s (with every partition paused kafkajs idles for this long, too).
        maxWaitTimeInMs: 200,
      }),
    begin: async (consumer) => {
      // A replacement consumer starts with every partition resumed; the old one's timers are moot.
      clearWaits();
      for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        autoCommit: true,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
        eachBatch: async ({ batch, resolveOffset, heartbeat, pause, isRunning, isStale }) => {
          const partitionKey = `${batch.topic}:${batch.partition}`;
          if (waiting.has(partitionKey)) return;
          for (const message of batch.messages) {
            if (!isRunning() || isStale()) return;
            let parsed: RetryMessage;
            try {
              parsed = RetryMessage.parse(JSON.parse(message.value?.toString() ?? ''));
            } catch (err) {
              log.error({ topic: batch.topic, partition: batch.partition, offset: message.offset, err }, 'poison retry message parked on the dead-letter topic');
              await options.deadLetter.producer.send([
                { topic: options.deadLetter.topic, key: message.key?.toString() ?? `${partitionKey}:${message.offset}`, value: message.value?.toString() ?? '', headers: { 'x-original-topic': batch.topic, 'x-failure-reason': 'invalid retry message' } },
              ]);
              resolveOffset(message.offset);
              continue;
            }
            const waitMs = Date.parse(parsed.notBefore) - options.clock().getTime();
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
            try {
              await options.onDue(parsed);
            } catch (err) {
              throw new HandlerFailedError(err);
            }
            resolveOffset(message.offset);
            await heartbeat();
          }
        },
      });
    },
  });
  return {
    async stop() {
      clearWaits();
      await running.stop();
    },
  };
}
