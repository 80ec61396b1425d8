import { httpTimeouts, kafkaConnection } from '@checkout/config';
import type { Logger } from '@checkout/logger';
import { createBaseApp, listen, type RunningServer, drainBeforeStop } from '@checkout/http';
import { connectMongo, ensureIndexes, type CommandCounter, type MongoConnection } from '@checkout/mongo';
import { OutboxRelay, createEventProducer, createKafka, ensureTopics, kafkaReadinessCheck, registerOutboxMetrics, type EventProducer, type SendCounter } from '@checkout/kafka';
import { TOPICS, topicName } from '@checkout/contracts';
import type { Config } from './config';
import { OrdersStore } from './store/orders.store';
import { ReferenceDataStore } from './store/reference-data.store';
import { ORDER_INDEXES } from './store/indexes';
import { OrderCommands } from './domain/orders.use-cases';
import { mountRoutes } from './http/router';
import type { OrderDocument } from './store/order.document';

export interface OrdersApp {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

/** Wires the orders service; nothing connects until start(). */
export function buildApp(config: Config, logger: Logger, options: { clock?: () => Date; commandCounter?: CommandCounter; sendCounter?: SendCounter } = {}): OrdersApp {
  const clock = options.clock ?? (() => new Date());
  let mongo: MongoConnection | undefined;
  let producer: EventProducer | undefined;
  let relay: OutboxRelay<OrderDocument> | undefined;
  let server: RunningServer | undefined;
  let shuttingDown = false;

  return {
    async start() {
      mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DATABASE, { appName: 'orders', logger, ...(options.commandCounter && { commandCounter: options.commandCounter }) });
      await ensureIndexes(mongo.db, ORDER_INDEXES);
      const kafka = createKafka({ ...kafkaConnection(config), clientId: config.KAFKA_CLIENT_ID ?? 'orders', logger });
      const orderEventsTopic = topicName(config.TOPIC_PREFIX, TOPICS.orderEvents);
      await ensureTopics(kafka, [{ topic: orderEventsTopic, numPartitions: config.ORDER_EVENTS_PARTITIONS }]);
      producer = createEventProducer(kafka, { ...(options.sendCounter && { sendCounter: options.sendCounter }) });
      await producer.connect();

      const orders = new OrdersStore(mongo.db);
      const referenceData = new ReferenceDataStore(mongo.db);
      const db = mongo;
      const { app, registry } = createBaseApp({
        service: 'orders',
        logger,
        isShuttingDown: () => shuttingDown,
        readiness: [
          { name: 'mongodb', check: () => db.ping() },
          { name: 'kafka', check: kafkaReadinessCheck(kafka) },
        ],
      });
      relay = new OutboxRelay<OrderDocument>({
        collection: orders.collection,
        producer,
        logger,
        sweepIntervalMs: config.OUTBOX_SWEEP_INTERVAL_MS,
        metrics: registerOutboxMetrics(registry, orders.collection),
      });
      const commands = new OrderCommands({ orders, referenceData, relay, orderEventsTopic, clock });
      if (config.API_ENABLED) mountRoutes(app, { internalCallers: config.INTERNAL_CALLERS, commands, referenceData, clock });
      if (config.SWEEPERS_ENABLED) relay.start();
      server = await listen(app, { host: config.HTTP_HOST, port: config.PORT, ...httpTimeouts(config) });
      return { url: server.url };
    },

    async stop() {
      shuttingDown = true;
      // /readyz now answers 503: keep serving until the load balancer has taken this replica out (issue 21).
      await drainBeforeStop(config.SHUTDOWN_DRAIN_MS, logger);
      await server?.close(config.SHUTDOWN_GRACE_MS);
      await relay?.stop();
      await producer?.disconnect().catch(() => {});
      await mongo?.close();
    },
  };
}
