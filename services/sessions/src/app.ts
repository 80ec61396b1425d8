import { httpTimeouts, kafkaConnection } from '@checkout/config';
import type { Logger } from '@checkout/logger';
import { createBaseApp, listen, type RunningServer, drainBeforeStop } from '@checkout/http';
import { Counter } from 'prom-client';
import { PeriodicTask, connectMongo, ensureIndexes, type CommandCounter, type MongoConnection } from '@checkout/mongo';
import {
  OutboxRelay,
  createEventProducer,
  createKafka,
  ensureTopics,
  kafkaReadinessCheck,
  registerConsumerMetrics,
  registerOutboxMetrics,
  type EventProducer,
  type RunningConsumer,
} from '@checkout/kafka';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import type { Config } from './config';
import { SessionsStore } from './store/sessions.store';
import { SESSION_INDEXES } from './store/indexes';
import type { SessionDocument } from './store/session.document';
import { OrdersClient } from './clients/orders.client';
import { SessionCommands } from './domain/sessions.use-cases';
import { startOrderEventsConsumer } from './messaging/order-events.consumer';
import { mountRoutes } from './http/router';

export interface SessionsApp {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

export interface SessionsAppOptions {
  /** Injectable clock (tests: near expiries without waiting 15 minutes). */
  clock?: () => Date;
  /** Counts the database commands this service sends (round-trip budget tests, the bench). */
  commandCounter?: CommandCounter;
}

/**
 * Wires the sessions service; nothing connects until start(). Its roles (API, consumers, sweepers) run
 * according to *_ENABLED; every process listens, so /healthz, /readyz and /metrics answer whatever the roles.
 */
export function buildApp(config: Config, logger: Logger, options: SessionsAppOptions = {}): SessionsApp {
  const clock = options.clock ?? (() => new Date());
  let mongo: MongoConnection | undefined;
  let producer: EventProducer | undefined;
  let relay: OutboxRelay<SessionDocument> | undefined;
  let server: RunningServer | undefined;
  let sweeper: PeriodicTask | undefined;
  let consumer: RunningConsumer | undefined;
  let consumerMetrics: ReturnType<typeof registerConsumerMetrics> | undefined;
  let orders: OrdersClient | undefined;
  let shuttingDown = false;

  return {
    async start() {
      mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DATABASE, { appName: 'sessions', logger, ...(options.commandCounter && { commandCounter: options.commandCounter }) });
      await ensureIndexes(mongo.db, SESSION_INDEXES);
      const kafka = createKafka({ ...kafkaConnection(config), clientId: config.KAFKA_CLIENT_ID ?? 'sessions', logger });
      const sessionEventsTopic = topicName(config.TOPIC_PREFIX, TOPICS.sessionEvents);
      await ensureTopics(kafka, [{ topic: sessionEventsTopic, numPartitions: config.SESSION_EVENTS_PARTITIONS }]);
      producer = createEventProducer(kafka);
      await producer.connect();

      const store = new SessionsStore(mongo.db);
      orders = new OrdersClient({ baseUrl: config.ORDERS_URL, internalToken: config.INTERNAL_TOKEN });
      const db = mongo;
      const { app, registry } = createBaseApp({
        service: 'sessions',
        logger,
        isShuttingDown: () => shuttingDown,
        readiness: [
          { name: 'mongodb', check: () => db.ping() },
          { name: 'kafka', check: kafkaReadinessCheck(kafka) },
        ],
      });
      relay = new OutboxRelay<SessionDocument>({
        collection: store.collection,
        producer,
        logger,
        sweepIntervalMs: config.OUTBOX_SWEEP_INTERVAL_MS,
        metrics: registerOutboxMetrics(registry, store.collection),
      });
      const commands = new SessionCommands({ store, orders, relay, sessionEventsTopic, checkoutBaseUrl: config.CHECKOUT_BASE_URL, clock, logger });
      if (config.CONSUMERS_ENABLED) {
        const topic = topicName(config.TOPIC_PREFIX, TOPICS.orderEvents);
        const groupId = topicName(config.TOPIC_PREFIX, CONSUMER_GROUPS.sessionsOrderEvents);
        // orders creates its own topic; make sure it exists so subscribing never races orders' first start.
        await ensureTopics(kafka, [{ topic, numPartitions: 6 }]);
        const metrics = registerConsumerMetrics(registry, kafka, { groups: [{ groupId, topics: [topic] }] });
        consumerMetrics = metrics;
        consumer = await startOrderEventsConsumer({ kafka, groupId, topic, commands, logger, onRestart: () => metrics.restarted(groupId) });
      }
      if (config.SWEEPERS_ENABLED) {
        relay.start();
        // Flow 4: every replica sweeps; each session's transition is a conditional update on the revision it
        // read, so each session expires, and fires its event, exactly once.
        const sweeps = new Counter({ name: 'sessions_expiry_sweeps_total', help: 'Expiry sweeps this process has completed (D21)', registers: [registry] });
        const expiredBySweep = new Counter({ name: 'sessions_expired_by_sweep_total', help: 'Sessions this process expired in its sweeps (D21)', registers: [registry] });
        const sweepOnce = async () => {
          expiredBySweep.inc(await commands.sweepDue());
          sweeps.inc();
        };
        sweeper = new PeriodicTask(sweepOnce, config.EXPIRY_SWEEP_INTERVAL_MS, (err) => logger.warn({ err }, 'expiry sweep failed; will retry'));
        sweeper.start();
      }
      if (config.API_ENABLED) {
        mountRoutes(app, {
          internalCallers: config.INTERNAL_CALLERS,
          processorSecret: config.PROCESSOR_WEBHOOK_SECRET,
          csrfSecret: config.CSRF_SECRET,
          commands,
          flowDeps: { store, orders, clock, logger, idSecret: config.ID_DERIVATION_SECRET },
          clock,
          secureCookies: config.CHECKOUT_BASE_URL.startsWith('https:'),
        });
      }
      server = await listen(app, { host: config.HTTP_HOST, port: config.PORT, ...httpTimeouts(config) });
      return { url: server.url };
    },

    async stop() {
      shuttingDown = true;
      // /readyz now answers 503: keep serving until the load balancer has taken this replica out (issue 21).
      await drainBeforeStop(config.SHUTDOWN_DRAIN_MS, logger);
      await server?.close(config.SHUTDOWN_GRACE_MS);
      await sweeper?.stop();
      await consumer?.stop().catch(() => {});
      await consumerMetrics?.close();
      await relay?.stop();
      await producer?.disconnect().catch(() => {});
      await orders?.close().catch(() => {});
      await mongo?.close();
    },
  };
}
