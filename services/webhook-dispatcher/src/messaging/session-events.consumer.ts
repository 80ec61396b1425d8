import type { Logger } from '@checkout/logger';
import { SessionEventV1 } from '@checkout/contracts';
import { runConsumer, type EventProducer, type KafkaClient, type RunningConsumer } from '@checkout/kafka';
import type { IncomingSessionEvent } from '../domain/dispatcher';

/**
 * Reads session events. The envelope is validated with SessionEventV1 (poison → dead-letter topic); the
 * webhook body is kept as the producer wrote it, so fields this version of the schema does not know still
 * reach the merchant. The handler returns — and the offset moves on — only once the event and its delivery
 * are stored; the attempt itself runs in the scheduler.
 */
export function runSessionEventsConsumer(options: {
  kafka: KafkaClient;
  groupId: string;
  topic: string;
  logger: Logger;
  partitionsConsumedConcurrently: number;
  deadLetter: { topic: string; producer: EventProducer };
  handle: (event: IncomingSessionEvent) => Promise<void>;
  onRestart: () => void;
}): Promise<RunningConsumer> {
  return runConsumer<IncomingSessionEvent>({
    kafka: options.kafka,
    groupId: options.groupId,
    topics: [options.topic],
    logger: options.logger,
    deadLetter: options.deadLetter,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
    onRestart: options.onRestart,
    parse: (raw) => {
      const result = SessionEventV1.safeParse(raw);
      if (!result.success) return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
      const rawBody = (raw as { body: Record<string, unknown> }).body;
      return { ok: true, value: { envelope: result.data, rawBody } };
    },
    handle: (event) => options.handle(event),
  });
}
