import type { Logger } from '@checkout/logger';
import {
  runConsumer,
  type ConsumerHooks,
  type KafkaClient,
  type ParseResult,
  type RunningConsumer,
} from '@checkout/kafka';
import { OrderEventMessage } from '@checkout/contracts';
import type { SessionCommands } from '../domain/sessions.use-cases';

/** What the consumer does with a received message's JSON; exported for the message fixtures test. */
export function parseOrderEvent(raw: unknown): ParseResult<OrderEventMessage> {
  const parsed = OrderEventMessage.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: parsed.error.message };
}

/**
 * Flow 5: orders' events keep each session's copy of its order current, and let the session catch up with what
 * happened to the order (completed: the session completes with its event; cancelled: D25, no webhook). At
 * least once and in any order: a snapshot is applied only if its revision is newer than the session's copy,
 * so a duplicate or an older event costs one read and no write (no processed-event ids are kept).
 */
export async function startOrderEventsConsumer(deps: {
  kafka: KafkaClient;
  groupId: string;
  topic: string;
  commands: SessionCommands;
  logger: Logger;
  hooks: ConsumerHooks;
}): Promise<RunningConsumer> {
  return runConsumer<OrderEventMessage>({
    kafka: deps.kafka,
    groupId: deps.groupId,
    topics: [deps.topic],
    ...deps.hooks,
    logger: deps.logger,
    parse: parseOrderEvent,
    handle: async (message) => {
      const scope = { organizationId: message.organizationId, mode: message.mode };
      await deps.commands.onOrderChanged(scope, {
        orderId: message.orderId,
        snapshot: { order: message.order, revision: message.revision },
      });
    },
  });
}
