import type { Logger } from '@checkout/logger';
import { ServiceRuntime } from '@checkout/service';
import { TOPICS, topicName } from '@checkout/contracts';
import type { Config } from './config';
import { OrdersStore } from './store/orders.store';
import { ReferenceDataStore } from './store/reference-data.store';
import { ReferenceData } from './domain/reference-data';
import { ORDER_INDEXES } from './store/indexes';
import { ORDER_MIGRATIONS } from './store/migrations';
import { OrderCommands } from './domain/orders.use-cases';
import { OrderEventsProducer } from './messaging/order-events.producer';
import { mountRoutes } from './http/router';
import type { OrderDocument } from './store/order.document';

/** Orders' migration steps: a release's record of one is read by today's runner (test-e2e contracts). */
export { ORDER_MIGRATIONS };

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
          clock,
        });
      if (config.SWEEPERS_ENABLED) {
        relay.start();
        await runtime.runMigrations(mongo.db, ORDER_MIGRATIONS);
      }
      const server = await runtime.listen(app);
      return { url: server.url };
    },

    stop: () => runtime.stop(),
  };
}
