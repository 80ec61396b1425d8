import type { Db } from 'mongodb';
import type { Logger } from '@checkout/logger';
import { idempotentOnEventId, runConsumer, type KafkaClient, type ParseResult, type RunningConsumer } from '@checkout/kafka';
import { ORDER_CANCELLED, OrderEventMessage } from '@checkout/contracts';
import type { SessionCommands } from '../domain/sessions.use-cases';
import { ORDER_EVENTS_CONSUMER } from '../store/indexes';

/** An order event with the id it was published under (the Kafka `event-id` header). */
type IdentifiedOrderEvent = OrderEventMessage & { eventId: string };

/**
 * D25 / flow 5: a cancelled order makes its pending session `cancelled` (no webhook). At least once: the
 * handler is idempotent on the Kafka `event-id` header, and cancelling an already settled session is a no-op.
 */
export async function startOrderEventsConsumer(deps: {
  kafka: KafkaClient;
  db: Db;
  groupId: string;
  topic: string;
  commands: SessionCommands;
  logger: Logger;
  onRestart: () => void;
}): Promise<RunningConsumer> {
  const handle = idempotentOnEventId<IdentifiedOrderEvent>(deps.db, ORDER_EVENTS_CONSUMER, (m) => m.eventId, async (message) => {
    if (message.type !== ORDER_CANCELLED) return;
    await deps.commands.onOrderCancelled({ organizationId: message.organizationId, mode: message.mode }, message.orderId);
  });
  return runConsumer<OrderEventMessage>({
    kafka: deps.kafka,
    groupId: deps.groupId,
    topics: [deps.topic],
    onRestart: deps.onRestart,
    logger: deps.logger,
    parse: (raw): ParseResult<OrderEventMessage> => {
      const parsed = OrderEventMessage.safeParse(raw);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: parsed.error.message };
    },
    handle: async (message, context) => {
      const eventId = context.headers['event-id'];
      // Without an event id there is nothing to dedupe on; the handler itself is idempotent.
      await handle({ ...message, eventId: eventId ?? `${message.type}:${message.orderId}` });
    },
  });
}
