import type { Logger } from '@checkout/logger';
import { Counter, type Registry } from 'prom-client';
import { PeriodicTask, shardKeyFields } from '@checkout/mongo';
import { ensureTopics, registerConsumerMetrics, type KafkaClient } from '@checkout/kafka';
import { ServiceRuntime } from '@checkout/service';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import type { Config } from './config';
import { SessionsStore } from './store/sessions.store';
import { COLLECTIONS, SESSION_INDEXES, SESSION_SHARDING } from './store/indexes';
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
}

/**
 * Wires the sessions service; nothing connects until start(). Its roles (API, consumers, sweepers) run
 * according to *_ENABLED; every process listens, so /healthz, /readyz and /metrics answer whatever the roles.
 */
export function buildApp(config: Config, logger: Logger, options: SessionsAppOptions = {}): SessionsApp {
  const clock = options.clock ?? (() => new Date());
  const runtime = new ServiceRuntime({ service: 'sessions', config, logger });

  return {
    async start() {
      const mongo = await runtime.connectMongo(SESSION_INDEXES);
      const sessionEventsTopic = topicName(config.TOPIC_PREFIX, TOPICS.sessionEvents);
      const kafka = await runtime.connectKafka([
        { topic: sessionEventsTopic, numPartitions: config.SESSION_EVENTS_PARTITIONS },
      ]);
      const producer = await runtime.connectProducer(kafka);

      const store = new SessionsStore(mongo.db);
      const orders = new OrdersClient({ baseUrl: config.ORDERS_URL, internalToken: config.INTERNAL_TOKEN });
      runtime.onStop('orders client', () => orders.close().catch(() => {}));
      const { app, registry } = runtime.httpApp();
      const relay = runtime.outboxRelay<SessionDocument>({
        collection: store.collection,
        producer,
        registry,
        shardKeyFields: shardKeyFields(SESSION_SHARDING, COLLECTIONS.sessions),
      });
      const checkoutBaseUrl = config.CHECKOUT_BASE_URL;
      const commands = new SessionCommands({
        store,
        orders,
        relay,
        sessionEventsTopic,
        checkoutBaseUrl,
        clock,
        logger,
      });
      if (config.CONSUMERS_ENABLED) await consumeOrderEvents(runtime, kafka, registry, commands);
      if (config.SWEEPERS_ENABLED) {
        relay.start();
        sweepExpiries(runtime, registry, commands);
      }
      if (config.API_ENABLED) {
        mountRoutes(app, {
          internalCallers: config.INTERNAL_CALLERS,
          processorSecret: config.PROCESSOR_WEBHOOK_SECRET,
          csrfSecret: config.CSRF_SECRET,
          commands,
          flowDeps: { store, orders, clock, logger, idSecret: config.ID_DERIVATION_SECRET },
          clock,
          secureCookies: checkoutBaseUrl.startsWith('https:'),
        });
      }
      const server = await runtime.listen(app);
      return { url: server.url };
    },

    stop: () => runtime.stop(),
  };
}

/** The consumers role: sessions' copies of their orders follow orders' events (takeOrderCopy). */
async function consumeOrderEvents(
  runtime: ServiceRuntime<Config>,
  kafka: KafkaClient,
  registry: Registry,
  commands: SessionCommands,
): Promise<void> {
  const { config, logger } = runtime;
  const topic = topicName(config.TOPIC_PREFIX, TOPICS.orderEvents);
  const groupId = topicName(config.TOPIC_PREFIX, CONSUMER_GROUPS.sessionsOrderEvents);
  // orders creates its own topic; make sure it exists so subscribing never races orders' first start.
  await ensureTopics(kafka, [{ topic, numPartitions: 6 }]);
  const metrics = registerConsumerMetrics(registry, kafka, { groups: [{ groupId, topics: [topic] }] });
  runtime.onStop('consumer metrics', () => metrics.close());
  const consumer = await startOrderEventsConsumer({
    kafka,
    groupId,
    topic,
    commands,
    logger,
    hooks: metrics.hooksFor(groupId),
  });
  runtime.onStop('order events consumer', () => consumer.stop().catch(() => {}));
}

/**
 * Flow 4: every replica sweeps; each expiry is a conditional write on the session still pending (the store's
 * `expire`), so each session expires, and fires its event, exactly once.
 */
function sweepExpiries(runtime: ServiceRuntime<Config>, registry: Registry, commands: SessionCommands): void {
  const sweeps = new Counter({
    name: 'sessions_expiry_sweeps_total',
    help: 'Expiry sweeps this process has completed (D21)',
    registers: [registry],
  });
  const expiredBySweep = new Counter({
    name: 'sessions_expired_by_sweep_total',
    help: 'Sessions this process expired in its sweeps (D21)',
    registers: [registry],
  });
  const sweepOnce = async () => {
    expiredBySweep.inc(await commands.sweepDue());
    sweeps.inc();
  };
  runtime.runInBackground(
    'expiry sweep',
    new PeriodicTask(sweepOnce, runtime.config.EXPIRY_SWEEP_INTERVAL_MS, (err) =>
      runtime.logger.warn({ err }, 'expiry sweep failed; will retry'),
    ),
  );
}
