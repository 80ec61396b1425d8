import type { Logger } from '@checkout/logger';
import {
  runConsumer,
  type ConsumerHooks,
  type KafkaClient,
  type ParseResult,
  type RunningConsumer,
} from '@checkout/kafka';
import { OrderEventMessage } from '@checkout/contracts';
import type { Books } from '../domain/books.use-cases';
import { mayMoveMoney } from '../domain/balance-lines';

/**
 * What the ledger reads of an event: its type and whose order it is, nothing else. Any version's body will do (the
 * order is read from orders' own store), so an event of an older or newer orders makes lines as well.
 */
const OrderNamed = OrderEventMessage.pick({ type: true, orderId: true, organizationId: true, mode: true });
type OrderNamed = ReturnType<typeof OrderNamed.parse>;

/** What the consumer does with a received message's JSON; exported for the message fixtures test. */
export function parseOrderNamed(raw: unknown): ParseResult<OrderNamed> {
  const parsed = OrderNamed.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: parsed.error.message };
}

/** Partitions of orders.events one replica handles at once: each order's events stay in order within its partition. */
const PARTITIONS_AT_ONCE = 3;

/**
 * D52: the ledger's consumer group (`orders.balance-lines`) on orders.events, off the payment path. Each event that
 * may move money (mayMoveMoney) names an order; its lines are built from the order as stored and inserted once by
 * their derived ids, then counted (Books.recordOrder). At least once and in any order: a duplicate or a replay costs
 * reads, no line.
 */
export async function startBalanceLinesConsumer(deps: {
  kafka: KafkaClient;
  groupId: string;
  topic: string;
  books: Books;
  logger: Logger;
  hooks: ConsumerHooks;
}): Promise<RunningConsumer> {
  return runConsumer<OrderNamed>({
    kafka: deps.kafka,
    groupId: deps.groupId,
    topics: [deps.topic],
    ...deps.hooks,
    logger: deps.logger,
    partitionsConsumedConcurrently: PARTITIONS_AT_ONCE,
    parse: parseOrderNamed,
    handle: async (message) => {
      if (!mayMoveMoney(message.type)) return;
      await deps.books.recordOrder({ organizationId: message.organizationId, mode: message.mode }, message.orderId);
    },
  });
}
