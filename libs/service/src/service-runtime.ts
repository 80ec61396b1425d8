import type Koa from 'koa';
import type { Registry } from 'prom-client';
import {
  MigrationRunner,
  connectMongo,
  ensureIndexes,
  migrationsInBackground,
  type Collection,
  type Db,
  type Document,
  type IndexDefinition,
  type Migration,
  type MongoConnection,
} from '@checkout/mongo';
import { buildInfo, httpTimeouts, kafkaConnection } from '@checkout/config';
import type { Logger } from '@checkout/logger';
import {
  createBaseApp,
  drainBeforeStop,
  listen,
  type BaseAppOptions,
  type HttpMetrics,
  type ReadinessCheck,
  type RunningServer,
} from '@checkout/http';
import {
  OutboxRelay,
  createEventProducer,
  createKafka,
  ensureTopics,
  kafkaReadinessCheck,
  registerOutboxMetrics,
  type EventProducer,
  type KafkaClient,
  type OutboxFields,
  type TopicSpec,
} from '@checkout/kafka';

/** The settings every service has (libs/config's baseConfigShape, plus its PORT) that the runtime reads. */
export interface RuntimeConfig {
  HTTP_HOST: string;
  PORT: number;
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  MONGODB_URL: string;
  MONGODB_DATABASE: string;
  SHUTDOWN_DRAIN_MS: number;
  SHUTDOWN_GRACE_MS: number;
}

/** libs/config's kafkaConfigShape, for the services that use Kafka. */
export interface KafkaRuntimeConfig extends RuntimeConfig {
  KAFKA_BROKERS: string[];
  KAFKA_CLIENT_ID?: string | undefined;
  KAFKA_SASL_MECHANISM: 'none' | 'scram-sha-256' | 'scram-sha-512';
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
  KAFKA_TLS: boolean;
  KAFKA_TLS_CA_FILE: string;
}

/** libs/config's outboxConfigShape, for the services that publish through an outbox. */
interface OutboxRuntimeConfig extends RuntimeConfig {
  OUTBOX_SWEEP_INTERVAL_MS: number;
}

export interface ServiceRuntimeOptions<C extends RuntimeConfig> {
  /** The service's name: MongoDB's appName, Kafka's default client id, the HTTP metrics' label. */
  service: string;
  config: C;
  logger: Logger;
}

/** A part that runs in the background until the service stops (a sweep, a relay, a consumer). */
export interface BackgroundPart {
  start(): void;
  stop(): Promise<void>;
}

/**
 * What every service's app.ts does around its own parts, once: connect to MongoDB and create its indexes,
 * create Kafka topics and connect a producer, build the base Koa app whose /readyz checks what was connected,
 * listen, and on stop: answer /readyz 503 and drain, close the listeners, then stop every part in
 * the reverse order of its start, each once, so a part stops before what it uses (a relay before its producer,
 * everything before MongoDB). A service's buildApp makes one runtime, and nothing connects until its start().
 */
export class ServiceRuntime<C extends RuntimeConfig> {
  private readonly readiness: ReadinessCheck[] = [];
  private readonly stops: { name: string; stop: () => Promise<unknown> }[] = [];
  private servers: RunningServer[] = [];
  private shuttingDown = false;

  constructor(private readonly options: ServiceRuntimeOptions<C>) {}

  get config(): C {
    return this.options.config;
  }

  get logger(): Logger {
    return this.options.logger;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops `name` when the service stops: after the listeners close and after everything registered later. */
  onStop(name: string, stop: () => Promise<unknown> | void): void {
    this.stops.push({ name, stop: async () => stop() });
  }

  /** Starts a background part now and stops it with the service. */
  runInBackground<P extends BackgroundPart>(name: string, part: P): P {
    part.start();
    this.onStop(name, () => part.stop());
    return part;
  }

  /**
   * Connects, creates the indexes (each declared with its query in the service's store/indexes.ts), is checked by
   * /readyz.
   */
  async connectMongo(indexes: readonly IndexDefinition[]): Promise<MongoConnection> {
    const { config, service, logger } = this.options;
    const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DATABASE, { appName: service, logger });
    this.onStop('mongodb', () => mongo.close());
    this.readiness.push({ name: 'mongodb', check: () => mongo.ping() });
    await ensureIndexes(mongo.db, indexes);
    return mongo;
  }

  /** The brokers' client, checked by /readyz, once `topics` exist with a leader for every partition. */
  async connectKafka(this: ServiceRuntime<KafkaRuntimeConfig>, topics: readonly TopicSpec[]): Promise<KafkaClient> {
    const { config, service, logger } = this.options;
    const kafka = createKafka({ ...kafkaConnection(config), clientId: config.KAFKA_CLIENT_ID ?? service, logger });
    await ensureTopics(kafka, topics);
    this.readiness.push({ name: 'kafka', check: kafkaReadinessCheck(kafka) });
    return kafka;
  }

  async connectProducer(kafka: KafkaClient): Promise<EventProducer> {
    const producer = createEventProducer(kafka);
    // A broker that is gone by now cannot take a disconnect; the process is ending either way.
    this.onStop('kafka producer', () => producer.disconnect().catch(() => {}));
    await producer.connect();
    return producer;
  }

  /**
   * libs/http's base app (request id, error mapping, metrics, /healthz /readyz /metrics), whose /readyz checks
   * what this runtime connected, before and after this call, and answers 503 once the service stops.
   */
  httpApp(options: Pick<BaseAppOptions, 'registry' | 'metrics' | 'exposure'> = {}): {
    app: Koa;
    registry: Registry;
    metrics: HttpMetrics;
  } {
    return createBaseApp({
      ...options,
      service: this.options.service,
      logger: this.options.logger,
      readiness: this.readiness,
      isShuttingDown: () => this.shuttingDown,
    });
  }

  /**
   * The service's rolling migrations (libs/mongo migrations.ts; docs/engineering.md, "Migrations that roll"): the
   * steps with nothing to do are settled now (a few commands each), the others run in the background on the
   * replica that holds each step's lease, every `intervalMs` until all are done; the service serves meanwhile, as
   * the previous release's replicas still do.
   */
  async runMigrations(db: Db, migrations: readonly Migration[], intervalMs = 5_000): Promise<MigrationRunner> {
    const { logger } = this.options;
    const runner = new MigrationRunner({ db, migrations, logger, version: buildInfo().version });
    await runner.settle();
    if (!runner.idle) this.runInBackground('migrations', migrationsInBackground(runner, intervalMs, logger));
    return runner;
  }

  /**
   * The relay of a collection with an outbox (docs/engineering.md, Outbox), sweeping every OUTBOX_SWEEP_INTERVAL_MS,
   * its metrics on `registry`; stopped with the service, started by the caller's sweepers role.
   */
  outboxRelay<D extends Document & OutboxFields & { _id: string }>(
    this: ServiceRuntime<OutboxRuntimeConfig>,
    options: {
      collection: Collection<D>;
      producer: EventProducer;
      registry: Registry;
      /** The collection's shard key fields, which the relay's writes carry (OutboxRelayOptions.shardKeyFields). */
      shardKeyFields?: readonly string[];
    },
  ): OutboxRelay<D> {
    const relay = new OutboxRelay<D>({
      collection: options.collection,
      ...(options.shardKeyFields && { shardKeyFields: options.shardKeyFields }),
      producer: options.producer,
      logger: this.options.logger,
      sweepIntervalMs: this.options.config.OUTBOX_SWEEP_INTERVAL_MS,
      metrics: registerOutboxMetrics(options.registry, options.collection),
    });
    this.onStop('outbox relay', () => relay.stop());
    return relay;
  }

  /** Listens on `port` (default PORT) with the slow-client timeouts of the config; closed first on stop. */
  async listen(app: Koa, port: number = this.options.config.PORT): Promise<RunningServer> {
    const { config } = this.options;
    const server = await listen(app, { host: config.HTTP_HOST, port, ...httpTimeouts(config) });
    this.servers.push(server);
    return server;
  }

  /**
   * /readyz answers 503 and the service keeps serving until the load balancer has taken it out; then
   * the listeners close (in-flight requests get SHUTDOWN_GRACE_MS), then every part stops, newest first. A part
   * that fails to stop is logged and the others still stop: none is left holding a socket or a group membership.
   */
  async stop(): Promise<void> {
    const { config, logger } = this.options;
    this.shuttingDown = true;
    await drainBeforeStop(config.SHUTDOWN_DRAIN_MS, logger);
    const servers = this.servers.splice(0);
    await Promise.all(servers.map((server) => server.close(config.SHUTDOWN_GRACE_MS)));
    for (const { name, stop } of this.stops.splice(0).reverse()) {
      await stop().catch((err: unknown) => logger.warn({ err, part: name }, 'a part failed to stop'));
    }
  }
}
