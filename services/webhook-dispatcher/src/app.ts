import { randomBytes } from 'node:crypto';
import type { lookup as dnsLookup } from 'node:dns';
import { hostname } from 'node:os';
import { httpTimeouts, kafkaConnection } from '@checkout/config';
import type { Logger } from '@checkout/logger';
import { createBaseApp, listen, type RunningServer, drainBeforeStop } from '@checkout/http';
import { Leases, PeriodicTask, connectMongo, type CommandCounter, ensureIndexes, retentionSweep, type MongoConnection } from '@checkout/mongo';
import { createEventProducer, createKafka, ensureTopics, kafkaReadinessCheck, registerConsumerMetrics, type EventProducer, type RunningConsumer } from '@checkout/kafka';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import { schedulerLimits, type Config } from './config';
import { COLLECTIONS, WEBHOOK_INDEXES } from './store/indexes';
import { EventsStore } from './store/events.store';
import { DeliveriesStore } from './store/deliveries.store';
import { AddressPolicy } from './domain/address-policy';
import { HostScheduler } from './domain/host-scheduler';
import { Dispatcher } from './domain/dispatcher';
import { WebhookSender } from './clients/webhook-sender';
import { GatewaySettingsClient, NO_SIGNING, type SigningSecrets } from './clients/gateway-settings.client';
import { WebhookPublisher, retryTopics } from './messaging/webhook-messages';
import { runSessionEventsConsumer } from './messaging/session-events.consumer';
import { runRetryConsumer } from './messaging/retry.consumer';
import { createDispatcherMetrics, type DispatcherMetrics } from './metrics';
import { mountRoutes } from './http/router';

export interface WebhookDispatcherApp {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
  /** For tests and operators: run one recovery sweep now. */
  sweepNow(): Promise<number>;
  readonly metrics: DispatcherMetrics;
}

export interface BuildOptions {
  clock?: () => Date;
  rng?: () => number;
  /** DNS resolution used by the sender's guarded lookup (tests); node:dns otherwise. */
  resolve?: typeof dnsLookup;
  /** Counts the database commands the dispatcher sends (component tests, the bench). */
  commandCounter?: CommandCounter;
}

const SWEEP_LEASE = 'webhook-dispatcher:recovery-sweep';

/** Wires the webhook dispatcher; nothing connects until start(). */
export function buildApp(config: Config, logger: Logger, options: BuildOptions = {}): WebhookDispatcherApp {
  const clock = options.clock ?? (() => new Date());
  const metrics = createDispatcherMetrics();
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let mongo: MongoConnection | undefined;
  let producer: EventProducer | undefined;
  let server: RunningServer | undefined;
  let sender: WebhookSender | undefined;
  let secrets: SigningSecrets = NO_SIGNING;
  let scheduler: HostScheduler | undefined;
  let dispatcher: Dispatcher | undefined;
  let leases: Leases | undefined;
  const consumers: RunningConsumer[] = [];
  let kafkaMetrics: ReturnType<typeof registerConsumerMetrics> | undefined;
  const recovery = new PeriodicTask(sweepOnce, config.WEBHOOK_RECOVERY_INTERVAL_MS, (err) => logger.warn({ err }, 'recovery sweep failed; will retry'));
  let retention: PeriodicTask | undefined;
  let shuttingDown = false;

  async function sweepOnce(): Promise<number> {
    if (!dispatcher || !leases) return 0;
    const lease = await leases.tryAcquire(SWEEP_LEASE, Math.max(2 * config.WEBHOOK_RECOVERY_INTERVAL_MS, 5_000));
    metrics.recoverySweeps.inc({ lease: lease ? 'taken' : 'held_elsewhere' });
    if (!lease) return 0;
    try {
      return await dispatcher.recoverySweep();
    } finally {
      await lease.release().catch(() => {});
    }
  }


  return {
    metrics,
    sweepNow: sweepOnce,

    async start() {
      mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DATABASE, { appName: 'webhook-dispatcher', logger, ...(options.commandCounter && { commandCounter: options.commandCounter }) });
      await ensureIndexes(mongo.db, WEBHOOK_INDEXES);
      const kafka = createKafka({ ...kafkaConnection(config), clientId: config.KAFKA_CLIENT_ID ?? 'webhook-dispatcher', logger });
      const prefix = config.TOPIC_PREFIX;
      const sessionEventsTopic = topicName(prefix, TOPICS.sessionEvents);
      const tiers = retryTopics(prefix);
      const deadLetterTopic = topicName(prefix, TOPICS.webhookDeadLetter);
      await ensureTopics(kafka, [
        { topic: sessionEventsTopic, numPartitions: config.SESSION_EVENTS_PARTITIONS },
        ...tiers.map((topic) => ({ topic, numPartitions: config.WEBHOOK_RETRY_PARTITIONS })),
        { topic: deadLetterTopic, numPartitions: config.WEBHOOK_RETRY_PARTITIONS },
      ]);
      producer = createEventProducer(kafka);
      await producer.connect();

      leases = new Leases(mongo.db);
      const events = new EventsStore(mongo.db);
      const deliveries = new DeliveriesStore(mongo.db);
      scheduler = new HostScheduler(
        schedulerLimits(config),
        (err, key) => logger.warn({ err, key }, 'webhook attempt failed to complete; the recovery sweep will pick it up'),
      );
      sender = new WebhookSender({
        policy: new AddressPolicy(config.WEBHOOK_ALLOWED_NETWORKS),
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        snippetBytes: config.WEBHOOK_RESPONSE_SNIPPET_BYTES,
        maxConnectionsPerHost: config.WEBHOOK_MAX_CONCURRENCY_PER_HOST,
        ...(options.resolve && { resolve: options.resolve }),
        // The attempt shows the merchant a coarse reason; what exactly failed (the address a name resolved to, the
        // error's text) is for operators, at debug level (issue 22).
        debug: (detail) => logger.debug(detail, 'webhook attempt failed'),
      });
      if (config.GATEWAY_URL) {
        secrets = new GatewaySettingsClient({ baseUrl: config.GATEWAY_URL, internalToken: config.INTERNAL_TOKEN, cacheMs: config.SIGNING_SECRET_CACHE_MS });
      } else {
        logger.warn('GATEWAY_URL is not set: webhooks will not be signed (D35)');
      }
      if (config.WEBHOOK_ALLOWED_NETWORKS.length > 0) {
        logger.warn({ allowed: config.WEBHOOK_ALLOWED_NETWORKS }, 'WEBHOOK_ALLOWED_NETWORKS lets webhooks reach internal addresses; never use this in production');
      }
      const publisher = new WebhookPublisher(producer, prefix);
      dispatcher = new Dispatcher({
        events,
        deliveries,
        recoveries: leases,
        scheduler,
        sender,
        hostKey: WebhookSender.hostKey,
        secrets,
        publisher,
        metrics,
        logger,
        clock,
        rng: options.rng ?? Math.random,
        owner,
        // Consumer and sweeper pods deliver; an API-only pod leaves new deliveries to them (and to the sweep).
        dispatchLocally: config.CONSUMERS_ENABLED || config.SWEEPERS_ENABLED,
        policy: {
          delaysMs: config.WEBHOOK_RETRY_DELAYS_MS,
          maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          claimTtlMs: config.WEBHOOK_CLAIM_TTL_MS,
          storeQueuedAfterMs: config.WEBHOOK_STORE_QUEUED_AFTER_MS,
        },
      });

      const db = mongo;
      const { app } = createBaseApp({
        service: 'webhook-dispatcher',
        logger,
        registry: metrics.registry,
        isShuttingDown: () => shuttingDown,
        readiness: [
          { name: 'mongodb', check: () => db.ping() },
          { name: 'kafka', check: kafkaReadinessCheck(kafka) },
        ],
      });
      if (config.API_ENABLED) mountRoutes(app, { internalCallers: config.INTERNAL_CALLERS, events, deliveries, dispatcher, clock });

      const sessionEventsGroup = topicName(prefix, CONSUMER_GROUPS.dispatcherSessionEvents);
      const retriesGroup = topicName(prefix, CONSUMER_GROUPS.dispatcherRetries);
      // Every pod reports the dead-letter depth; lag and restarts concern the pods that consume.
      const brokerMetrics = registerConsumerMetrics(metrics.registry, kafka, {
        groups: config.CONSUMERS_ENABLED ? [{ groupId: sessionEventsGroup, topics: [sessionEventsTopic] }, { groupId: retriesGroup, topics: tiers }] : [],
        depthTopics: [deadLetterTopic],
      });
      kafkaMetrics = brokerMetrics;
      if (config.CONSUMERS_ENABLED) {
        const deadLetter = { topic: deadLetterTopic, producer };
        const active = dispatcher;
        consumers.push(
          await runSessionEventsConsumer({
            kafka,
            groupId: sessionEventsGroup,
            onRestart: () => brokerMetrics.restarted(sessionEventsGroup),
            topic: sessionEventsTopic,
            logger,
            deadLetter,
            partitionsConsumedConcurrently: Math.min(config.SESSION_EVENTS_PARTITIONS, 32),
            handleBatch: (events) => active.recordSessionEvents(events),
          }),
        );
        consumers.push(
          await runRetryConsumer({
            kafka,
            groupId: retriesGroup,
            onRestart: () => brokerMetrics.restarted(retriesGroup),
            topics: tiers,
            logger,
            clock,
            deadLetter,
            partitionsConsumedConcurrently: Math.min(tiers.length * config.WEBHOOK_RETRY_PARTITIONS, 64),
            onDue: (message) => active.onRetryDue(message),
          }),
        );
      }
      if (config.SWEEPERS_ENABLED) {
        recovery.start();
        retention = retentionSweep(
          mongo.db,
          [
            { collection: COLLECTIONS.events, field: 'createdAt', keepMs: config.WEBHOOK_EVENTS_RETENTION_MS },
            { collection: COLLECTIONS.deliveries, field: 'createdAt', keepMs: config.WEBHOOK_EVENTS_RETENTION_MS, where: { status: { $ne: 'pending' } } },
          ],
          config.RETENTION_SWEEP_INTERVAL_MS,
          (err) => logger.warn({ err }, 'retention sweep failed; will retry'),
        );
        retention.start();
      }
      server = await listen(app, { host: config.HTTP_HOST, port: config.PORT, ...httpTimeouts(config) });
      return { url: server.url };
    },

    async stop() {
      shuttingDown = true;
      // /readyz now answers 503: keep serving until the load balancer has taken this replica out (issue 21).
      await drainBeforeStop(config.SHUTDOWN_DRAIN_MS, logger);
      await server?.close(config.SHUTDOWN_GRACE_MS);
      // Stop taking work, let attempts in flight finish (their results are recorded), then close.
      await Promise.all(consumers.splice(0).map((c) => c.stop().catch((err: unknown) => logger.warn({ err }, 'consumer stop failed'))));
      await recovery.stop();
      await retention?.stop();
      scheduler?.stop();
      if (scheduler) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([scheduler.idle(), new Promise((resolve) => (timer = setTimeout(resolve, config.SHUTDOWN_GRACE_MS)))]);
        clearTimeout(timer);
      }
      dispatcher?.stop();
      await sender?.close();
      await secrets.close();
      await kafkaMetrics?.close();
      await producer?.disconnect().catch(() => {});
      await mongo?.close();
    },
  };
}

export { parseConfig, type Config } from './config';

