import { randomBytes } from 'node:crypto';
import type { lookup as dnsLookup } from 'node:dns';
import { hostname } from 'node:os';
import type { Logger } from '@checkout/logger';
import { Leases, PeriodicTask, type Db } from '@checkout/mongo';
import { registerConsumerMetrics, type EventProducer, type KafkaClient, type RunningConsumer } from '@checkout/kafka';
import { ServiceRuntime } from '@checkout/service';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import { budgetLimits, schedulerLimits, type Config } from './config';
import { WEBHOOK_INDEXES } from './store/indexes';
import { EventsStore } from './store/events.store';
import { DeliveriesStore } from './store/deliveries.store';
import { WebhookEndpointsStore } from './store/webhook-endpoints.store';
import { webhookRetention } from './store/retention';
import { TenantUsageStore } from './store/tenant-usage.store';
import { TenantBudgets } from './domain/budgets';
import { EndpointDirectory } from './domain/engine/endpoint-directory';
import { EventLog } from './domain/event-log';
import { WebhookEndpoints } from './domain/webhook-endpoints';
import { AddressPolicy } from './domain/rules/address-policy';
import { HostScheduler } from './domain/engine/host-scheduler';
import { createDispatcher, type Dispatcher } from './domain/engine/dispatcher';
import type { DeliveryPolicy } from './domain/engine/ports';
import { BackgroundWork } from './domain/engine/background-work';
import { WebhookSender } from './clients/webhook-endpoints.client';
import { GatewaySettingsClient, NO_SIGNING, type SigningSecrets } from './clients/gateway.client';
import { WebhookPublisher, retryTopics } from './messaging/webhook-messages';
import { runEventsConsumer } from './messaging/events.consumer';
import { parseSessionEvent } from './messaging/session-events.consumer';
import { parseOrderPublicEvent } from './messaging/order-public-events.consumer';
import { parseReportEvent } from './messaging/report-events.consumer';
import { runRetryConsumer } from './messaging/retry.consumer';
import { createDispatcherMetrics, type DispatcherMetrics } from './metrics';
import { mountRoutes, type RouteDeps } from './http/router';

type ConsumerMetrics = ReturnType<typeof registerConsumerMetrics>;

/**
 * Orders creates orders.public-events and reports.public-events (ORDER_EVENTS_PARTITIONS, 6 by default); this only
 * makes sure they exist.
 */
const ORDER_PUBLIC_EVENTS_PARTITIONS = 6;

export interface WebhookDispatcherApp {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
  readonly metrics: DispatcherMetrics;
}

export interface BuildOptions {
  clock?: () => Date;
  rng?: () => number;
  /** DNS resolution used by the sender's guarded lookup (tests); node:dns otherwise. */
  resolve?: typeof dnsLookup;
  /** A recovery's lease (D44) unless renewed; 120 s otherwise. Tests shorten it to outlast it. */
  recoveryLeaseMs?: number;
}

/**
 * The dispatcher's topics: the events it records (sessions', orders' public ones), its retry tiers and its dead
 * letters.
 */
function dispatcherTopics(prefix: string): {
  sessionEvents: string;
  orderPublicEvents: string;
  reportEvents: string;
  tiers: string[];
  deadLetter: string;
} {
  return {
    sessionEvents: topicName(prefix, TOPICS.sessionEvents),
    orderPublicEvents: topicName(prefix, TOPICS.orderPublicEvents),
    reportEvents: topicName(prefix, TOPICS.reportEvents),
    tiers: retryTopics(prefix),
    deadLetter: topicName(prefix, TOPICS.webhookDeadLetter),
  };
}

function createSender(config: Config, options: BuildOptions, policy: AddressPolicy, logger: Logger): WebhookSender {
  if (config.WEBHOOK_ALLOWED_NETWORKS.length > 0) {
    logger.warn(
      { allowed: config.WEBHOOK_ALLOWED_NETWORKS },
      'WEBHOOK_ALLOWED_NETWORKS lets webhooks reach internal addresses; never use this in production',
    );
  }
  return new WebhookSender({
    policy,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    snippetBytes: config.WEBHOOK_RESPONSE_SNIPPET_BYTES,
    maxConnectionsPerHost: config.WEBHOOK_MAX_CONCURRENCY_PER_HOST,
    ...(options.resolve && { resolve: options.resolve }),
    // The attempt shows the merchant a coarse reason; what exactly failed (the address a name resolved to, the
    // error's text) is for operators, at debug level.
    debug: (detail) => logger.debug(detail, 'webhook attempt failed'),
  });
}

function createSigningSecrets(config: Config, logger: Logger): SigningSecrets {
  if (config.GATEWAY_URL)
    return new GatewaySettingsClient({
      baseUrl: config.GATEWAY_URL,
      internalToken: config.INTERNAL_TOKEN,
      cacheMs: config.SIGNING_SECRET_CACHE_MS,
    });
  logger.warn('GATEWAY_URL is not set: webhooks will not be signed (D35)');
  return NO_SIGNING;
}

/**
 * The event consumers (sessions', orders' public ones) and the retry tiers', handing batches to the recorder and due
 * retries to the attempts.
 */
async function startConsumers(input: {
  config: Config;
  kafka: KafkaClient;
  producer: EventProducer;
  dispatcher: Dispatcher;
  brokerMetrics: ConsumerMetrics;
  logger: Logger;
  clock: () => Date;
}): Promise<RunningConsumer[]> {
  const { config, kafka, producer, brokerMetrics, logger } = input;
  const { record, attempts } = input.dispatcher;
  const topics = dispatcherTopics(config.TOPIC_PREFIX);
  const deadLetter = { topic: topics.deadLetter, producer };
  const inGroup = (group: string) => {
    const groupId = topicName(config.TOPIC_PREFIX, group);
    return { kafka, groupId, ...brokerMetrics.hooksFor(groupId), logger, deadLetter };
  };
  // The groups join at once: a join waits for the group's other members to rejoin (a heartbeat and a fetch away), so
  // one after another they added a second or more to every replica's start, and to every rolling step.
  return startAllOrNone([
    runEventsConsumer({
      ...inGroup(CONSUMER_GROUPS.dispatcherSessionEvents),
      topic: topics.sessionEvents,
      partitionsConsumedConcurrently: Math.min(config.SESSION_EVENTS_PARTITIONS, 32),
      parse: parseSessionEvent,
      handleBatch: (events) => record.recordEventsAndQueueFirstAttempts(events),
    }),
    // D49: orders' public events take the same recording path, the one place an event becomes a stored public event.
    runEventsConsumer({
      ...inGroup(CONSUMER_GROUPS.dispatcherOrderPublicEvents),
      topic: topics.orderPublicEvents,
      partitionsConsumedConcurrently: ORDER_PUBLIC_EVENTS_PARTITIONS,
      parse: parseOrderPublicEvent,
      handleBatch: (events) => record.recordEventsAndQueueFirstAttempts(events),
    }),
    // D52: report events too, from a topic of their own (docs/books.md: a dispatcher of the previous release reads
    // orders.public-events strictly).
    runEventsConsumer({
      ...inGroup(CONSUMER_GROUPS.dispatcherReportEvents),
      topic: topics.reportEvents,
      partitionsConsumedConcurrently: ORDER_PUBLIC_EVENTS_PARTITIONS,
      parse: parseReportEvent,
      handleBatch: (events) => record.recordEventsAndQueueFirstAttempts(events),
    }),
    runRetryConsumer({
      ...inGroup(CONSUMER_GROUPS.dispatcherRetries),
      topics: topics.tiers,
      clock: input.clock,
      partitionsConsumedConcurrently: Math.min(topics.tiers.length * config.WEBHOOK_RETRY_PARTITIONS, 64),
      onDue: (message) => attempts.onRetryDue(message),
    }),
  ]);
}

/** Every consumer running, or none: those that started are stopped again when another failed to. */
async function startAllOrNone(starting: readonly Promise<RunningConsumer>[]): Promise<RunningConsumer[]> {
  const settled = await Promise.allSettled(starting);
  const running = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (!failed) return running;
  await Promise.allSettled(running.map((consumer) => consumer.stop()));
  throw failed.reason;
}

/** Everything `start` wires the parts from, once MongoDB and Kafka are connected. */
interface Wiring {
  config: Config;
  logger: Logger;
  options: BuildOptions;
  runtime: ServiceRuntime<Config>;
  db: Db;
  producer: EventProducer;
  metrics: DispatcherMetrics;
  clock: () => Date;
}

/**
 * The stores, the engine (ports filled with the stores, the sender, the publisher) and the API's use cases. Parts
 * that hold resources are registered with the runtime as they are made, so they stop newest first.
 */
function wireParts({ config, logger, options, runtime, db, producer, metrics, clock }: Wiring) {
  const leases = new Leases(db);
  const events = new EventsStore(db);
  const deliveries = new DeliveriesStore(db);
  const webhookEndpoints = new WebhookEndpointsStore(db);
  const usage = new TenantUsageStore(db);
  const budgets = new TenantBudgets(usage, budgetLimits(config), clock);
  const directory = new EndpointDirectory(webhookEndpoints, { cacheMs: config.WEBHOOK_ENDPOINT_CACHE_MS, clock });
  const secrets = createSigningSecrets(config, logger);
  runtime.onStop('signing secrets', () => secrets.close());
  // One rule for both places an address is judged (D33): an endpoint's URL at registration, every attempt's address.
  const policy = new AddressPolicy(config.WEBHOOK_ALLOWED_NETWORKS, config.WEBHOOK_DENIED_NETWORKS);
  const sender = createSender(config, options, policy, logger);
  runtime.onStop('webhook sender', () => sender.close());
  const scheduler = new HostScheduler(schedulerLimits(config), (err, key) =>
    logger.warn({ err, key }, 'webhook attempt failed to complete; the recovery sweep will pick it up'),
  );
  const dispatcher = createDispatcher({
    stores: { events, deliveries, endpoints: webhookEndpoints, usage },
    directory,
    scheduler,
    outbound: {
      sender,
      hostKey: (url) => WebhookSender.hostKey(url),
      addressOf: (url) => sender.addressOf(url),
      secrets,
      publisher: new WebhookPublisher(producer, config.TOPIC_PREFIX),
    },
    local: {
      owner: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      // Consumer and sweeper pods deliver; an API-only pod leaves new deliveries to them (and to the sweep).
      dispatchLocally: config.CONSUMERS_ENABLED || config.SWEEPERS_ENABLED,
      clock,
      rng: options.rng ?? Math.random,
      logger,
      metrics,
    },
    policy: deliveryPolicy(config),
    recoveries: leases,
    ...(options.recoveryLeaseMs !== undefined && { recoveryLeaseMs: options.recoveryLeaseMs }),
  });
  runtime.onStop('attempts', () => dispatcher.stop(config.SHUTDOWN_GRACE_MS));
  const background = backgroundWork({ config, logger, db, metrics }, leases, dispatcher.recovery, budgets);
  const api: RouteDeps = {
    internalCallers: config.INTERNAL_CALLERS,
    eventLog: new EventLog(events, deliveries, config.EVENT_SEARCH_MAX_TIME_MS),
    record: dispatcher.record,
    recovery: dispatcher.recovery,
    endpoints: new WebhookEndpoints({
      store: webhookEndpoints,
      deliveries,
      changes: directory,
      clock,
      policy,
      maxHosts: config.WEBHOOK_ENDPOINT_HOSTS_MAX,
    }),
    budgets,
    clock,
  };
  return { dispatcher, background, api };
}

/** The periodic work beside the attempts: retention by mode (D34), the near-budget gauge and the recovery sweep. */
function backgroundWork(
  { config, logger, db, metrics }: Pick<Wiring, 'config' | 'logger' | 'db' | 'metrics'>,
  leases: Leases,
  recovery: ReturnType<typeof createDispatcher>['recovery'],
  budgets: TenantBudgets,
): BackgroundWork {
  const retention = webhookRetention(
    db,
    {
      keepMs: { live: config.WEBHOOK_EVENTS_RETENTION_MS, test: config.WEBHOOK_TEST_EVENTS_RETENTION_MS },
      intervalMs: config.RETENTION_SWEEP_INTERVAL_MS,
    },
    (err) => logger.warn({ err }, 'retention sweep failed; will retry'),
  );
  const budgetGauge = new PeriodicTask(
    async () => {
      for (const { mode, budget, tenants } of await budgets.nearBudget())
        metrics.tenantsNearBudget.set({ mode, budget }, tenants);
    },
    config.BUDGET_GAUGE_INTERVAL_MS,
    (err) => logger.warn({ err }, 'could not count the tenants near their budgets; will retry'),
  );
  return new BackgroundWork(
    leases,
    recovery,
    [retention, budgetGauge],
    {
      recoveryIntervalMs: config.WEBHOOK_RECOVERY_INTERVAL_MS,
      onRecoveryRound: (taken) => metrics.recoverySweeps.inc({ lease: taken ? 'taken' : 'held_elsewhere' }),
    },
    logger,
  );
}

function deliveryPolicy(config: Config): DeliveryPolicy {
  return {
    delaysMs: config.WEBHOOK_RETRY_DELAYS_MS,
    maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    claimTtlMs: config.WEBHOOK_CLAIM_TTL_MS,
    fanOutBacklog: config.WEBHOOK_MAX_QUEUED,
    endpointDisableAfterMs: config.WEBHOOK_ENDPOINT_DISABLE_AFTER_MS,
  };
}

/** Kafka with the dispatcher's topics, and the consumer metrics every pod reports. */
async function connectKafka(runtime: ServiceRuntime<Config>, config: Config, metrics: DispatcherMetrics) {
  const topics = dispatcherTopics(config.TOPIC_PREFIX);
  const kafka = await runtime.connectKafka([
    { topic: topics.sessionEvents, numPartitions: config.SESSION_EVENTS_PARTITIONS },
    // Orders creates its own topic; made sure of here too, so subscribing never races orders' first start.
    { topic: topics.orderPublicEvents, numPartitions: ORDER_PUBLIC_EVENTS_PARTITIONS },
    { topic: topics.reportEvents, numPartitions: ORDER_PUBLIC_EVENTS_PARTITIONS },
    ...topics.tiers.map((topic) => ({ topic, numPartitions: config.WEBHOOK_RETRY_PARTITIONS })),
    { topic: topics.deadLetter, numPartitions: config.WEBHOOK_RETRY_PARTITIONS },
  ]);
  const producer = await runtime.connectProducer(kafka);
  // Every pod reports the dead-letter depth; lag and restarts concern the pods that consume.
  const group = (id: string, groupTopics: string[]) => ({
    groupId: topicName(config.TOPIC_PREFIX, id),
    topics: groupTopics,
  });
  const consumedGroups = [
    group(CONSUMER_GROUPS.dispatcherSessionEvents, [topics.sessionEvents]),
    group(CONSUMER_GROUPS.dispatcherOrderPublicEvents, [topics.orderPublicEvents]),
    group(CONSUMER_GROUPS.dispatcherReportEvents, [topics.reportEvents]),
    group(CONSUMER_GROUPS.dispatcherRetries, topics.tiers),
  ];
  const kafkaMetrics = registerConsumerMetrics(metrics.registry, kafka, {
    groups: config.CONSUMERS_ENABLED ? consumedGroups : [],
    depthTopics: [topics.deadLetter],
  });
  runtime.onStop('consumer metrics', () => kafkaMetrics.close());
  return { kafka, producer, kafkaMetrics };
}

/**
 * Wires the webhook dispatcher; nothing connects until start(). Parts are registered with the runtime in the order
 * they start, so on stop they go newest first: the sweeps and the consumers stop taking work, queued attempts are
 * dropped with their holds given back (the other replicas' sweep takes them), attempts in flight finish (their
 * results recorded, at most SHUTDOWN_GRACE_MS), then the sender, the producer and MongoDB close.
 */
export function buildApp(config: Config, logger: Logger, options: BuildOptions = {}): WebhookDispatcherApp {
  const metrics = createDispatcherMetrics();
  const clock = options.clock ?? (() => new Date());
  const runtime = new ServiceRuntime({ service: 'webhook-dispatcher', config, logger });

  async function start(): Promise<{ url: string }> {
    const mongo = await runtime.connectMongo(WEBHOOK_INDEXES);
    const { kafka, producer, kafkaMetrics } = await connectKafka(runtime, config, metrics);
    const wiring = { config, logger, options, runtime, db: mongo.db, producer, metrics, clock };
    const { dispatcher, background, api } = wireParts(wiring);
    const { app } = runtime.httpApp({ registry: metrics.registry });
    if (config.API_ENABLED) mountRoutes(app, api);
    if (config.CONSUMERS_ENABLED) {
      const consumers = await startConsumers({
        config,
        kafka,
        producer,
        dispatcher,
        brokerMetrics: kafkaMetrics,
        logger,
        clock,
      });
      for (const consumer of consumers) {
        runtime.onStop('consumer', () =>
          consumer.stop().catch((err: unknown) => logger.warn({ err }, 'consumer stop failed')),
        );
      }
    }
    if (config.SWEEPERS_ENABLED) runtime.runInBackground('sweeps', background);
    const server = await runtime.listen(app);
    return { url: server.url };
  }

  return {
    metrics,
    start,
    stop: () => runtime.stop(),
  };
}

export { parseConfig, type Config } from './config';
