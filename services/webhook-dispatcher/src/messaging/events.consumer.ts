import type { Logger } from '@checkout/logger';
import {
  runBatchConsumer,
  type EventProducer,
  type KafkaClient,
  type ParseResult,
  type RunningConsumer,
} from '@checkout/kafka';
import type { IncomingEvent } from '../domain/engine/ports';

/**
 * Reads a topic of events to record (sessions' events, D30; orders' public events, D49). The envelope is validated
 * by `parse` (poison → dead-letter topic); the body is kept as the producer wrote it, so fields this version of the
 * schema does not know still reach the merchant. A fetched batch is handled at once; its offsets are committed
 * only once its events and their deliveries are stored (pending, before their first attempt), while the next
 * batches flow on.
 */
export function runEventsConsumer(options: {
  kafka: KafkaClient;
  groupId: string;
  topic: string;
  logger: Logger;
  partitionsConsumedConcurrently: number;
  deadLetter: { topic: string; producer: EventProducer };
  parse: (raw: unknown) => ParseResult<IncomingEvent>;
  handleBatch: (events: IncomingEvent[]) => Promise<{ done: Promise<void> }>;
  onRestart: () => void;
  onReceived: (topic: string, ageMs: number) => void;
}): Promise<RunningConsumer> {
  return runBatchConsumer<IncomingEvent>({
    kafka: options.kafka,
    groupId: options.groupId,
    topics: [options.topic],
    logger: options.logger,
    deadLetter: options.deadLetter,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
    // A few hundred events per batch: enough to share a command, small enough that the batches of every
    // partition together stay near the scheduler's in-memory bound (back-pressure keeps the rest in Kafka).
    maxBytesPerPartition: 256 * 1024,
    onRestart: options.onRestart,
    onReceived: options.onReceived,
    parse: options.parse,
    handleBatch: (messages) =>
      options.handleBatch(messages.map((m) => (m.context.trace ? { ...m.value, trace: m.context.trace } : m.value))),
  });
}
