import type { Logger } from '@checkout/logger';
import { SessionEventV1 } from '@checkout/contracts';
import {
  runBatchConsumer,
  type EventProducer,
  type KafkaClient,
  type ParseResult,
  type RunningConsumer,
} from '@checkout/kafka';
import type { IncomingSessionEvent } from '../domain/ports';

/** What the consumer does with a received message's JSON; exported for the message fixtures test. */
export function parseSessionEvent(raw: unknown): ParseResult<IncomingSessionEvent> {
  const result = SessionEventV1.safeParse(raw);
  if (!result.success)
    return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const rawBody = (raw as { body: Record<string, unknown> }).body;
  const { body, ...envelope } = result.data;
  return { ok: true, value: { envelope, createdAt: body.createdAt, rawBody } };
}

/**
 * Reads session events. The envelope is validated with SessionEventV1 (poison → dead-letter topic); the
 * webhook body is kept as the producer wrote it, so fields this version of the schema does not know still
 * reach the merchant. A fetched batch is handled at once; its offsets are committed only once its events and
 * their deliveries are stored (pending, before their first attempt), while the next batches flow on.
 */
export function runSessionEventsConsumer(options: {
  kafka: KafkaClient;
  groupId: string;
  topic: string;
  logger: Logger;
  partitionsConsumedConcurrently: number;
  deadLetter: { topic: string; producer: EventProducer };
  handleBatch: (events: IncomingSessionEvent[]) => Promise<{ done: Promise<void> }>;
  onRestart: () => void;
}): Promise<RunningConsumer> {
  return runBatchConsumer<IncomingSessionEvent>({
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
    parse: parseSessionEvent,
    handleBatch: (messages) =>
      options.handleBatch(messages.map((m) => (m.context.trace ? { ...m.value, trace: m.context.trace } : m.value))),
  });
}
