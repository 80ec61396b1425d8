import type { Logger } from '@checkout/logger';
import { ServiceRuntime } from '@checkout/service';
import { PeriodicTask } from '@checkout/mongo';
import { registerConsumerMetrics, type KafkaClient } from '@checkout/kafka';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import type { Config } from './config';
import { OrdersStore } from './store/orders.store';
import { ReferenceDataStore } from './store/reference-data.store';
import { BalanceStore } from './store/balance.store';
import { ReferenceData } from './domain/reference-data';
import { ORDER_INDEXES } from './store/indexes';
import { orderMigrations } from './store/migrations';
import { OrderCommands } from './domain/orders.use-cases';
import { Books } from './domain/books.use-cases';
import { OrderEventsProducer } from './messaging/order-events.producer';
import { startBalanceLinesConsumer } from './messaging/balance-lines.consumer';
import { mountRoutes } from './http/router';
import type { OrderDocument } from './store/order.document';

/**
 * Orders' migration steps as data: a release's record of one is read by today's runner (test-e2e contracts), which
 * only settles them. The backfill a step does is the service's own (wired in start()), never run from here.
 */
export const ORDER_MIGRATIONS = orderMigrations(() =>
  Promise.reject(new Error('the balance backfill runs in the orders service only')),
);

export interface OrdersApp {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

/** Wires the orders service; nothing connects until start(). */
export function buildApp(config: Config, logger: Logger, options: { clock?: () => Date } = {}): OrdersApp {
  const clock = options.clock ?? (() => new Date());
  const runtime = new ServiceRuntime({ service: 'orders', config, logger });

  return {
    async start() {
      const mongo = await runtime.connectMongo(ORDER_INDEXES);
      const topics = {
        orderEvents: topicName(config.TOPIC_PREFIX, TOPICS.orderEvents),
        publicEvents: topicName(config.TOPIC_PREFIX, TOPICS.orderPublicEvents),
      };
      const kafka = await runtime.connectKafka([
        { topic: topics.orderEvents, numPartitions: config.ORDER_EVENTS_PARTITIONS },
        { topic: topics.publicEvents, numPartitions: config.ORDER_EVENTS_PARTITIONS },
      ]);
      const producer = await runtime.connectProducer(kafka);

      const orders = new OrdersStore(mongo.db);
      const referenceData = new ReferenceDataStore(mongo.db);
      const books = new Books({ orders, books: new BalanceStore(mongo.db), clock });
      const { app, registry } = runtime.httpApp();
      const relay = runtime.outboxRelay<OrderDocument>({ collection: orders.collection, producer, registry });
      const commands = new OrderCommands({
        orders,
        referenceData,
        events: new OrderEventsProducer(relay, topics),
        clock,
      });
      if (config.API_ENABLED)
        mountRoutes(app, {
          internalCallers: config.INTERNAL_CALLERS,
          processorSecret: config.PROCESSOR_REFUND_WEBHOOK_SECRET,
          commands,
          referenceData: new ReferenceData(referenceData, clock),
          books,
          clock,
        });
      if (config.CONSUMERS_ENABLED) await consumeBalanceLines(runtime, kafka, registry, books, topics.orderEvents);
      if (config.SWEEPERS_ENABLED) {
        relay.start();
        sweepUncountedLines(runtime, books);
        await runtime.runMigrations(
          mongo.db,
          orderMigrations(async (order) => {
            await books.backfillOrder(order);
          }),
        );
      }
      const server = await runtime.listen(app);
      return { url: server.url };
    },

    stop: () => runtime.stop(),
  };
}

/** The consumers role: D52's ledger, one balance transaction per money movement, off the payment path. */
async function consumeBalanceLines(
  runtime: ServiceRuntime<Config>,
  kafka: KafkaClient,
  registry: Parameters<typeof registerConsumerMetrics>[0],
  books: Books,
  topic: string,
): Promise<void> {
  const { config, logger } = runtime;
  const groupId = topicName(config.TOPIC_PREFIX, CONSUMER_GROUPS.ordersBalanceLines);
  const metrics = registerConsumerMetrics(registry, kafka, { groups: [{ groupId, topics: [topic] }] });
  runtime.onStop('consumer metrics', () => metrics.close());
  const consumer = await startBalanceLinesConsumer({
    kafka,
    groupId,
    topic,
    books,
    logger,
    onRestart: () => metrics.restarted(groupId),
  });
  runtime.onStop('balance lines consumer', () => consumer.stop().catch(() => {}));
}

/**
 * D52: every sweeper replica counts the lines a consumer left uncounted (it stopped between its insert and its
 * count) and finishes a batch left pending; the counting is exactly once under any number of them.
 */
function sweepUncountedLines(runtime: ServiceRuntime<Config>, books: Books): void {
  runtime.runInBackground(
    'ledger sweep',
    new PeriodicTask(
      () => books.countStragglers(),
      runtime.config.BALANCE_SWEEP_INTERVAL_MS,
      (err) => runtime.logger.warn({ err }, 'ledger sweep failed; will retry'),
    ),
  );
}
