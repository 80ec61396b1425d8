import type { Logger } from '@checkout/logger';
import { ServiceRuntime } from '@checkout/service';
import { PeriodicTask, shardKeyFields, type Db } from '@checkout/mongo';
import { OutboxRelay, registerConsumerMetrics, type EventProducer, type KafkaClient } from '@checkout/kafka';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import type { Config } from './config';
import { OrdersStore } from './store/orders.store';
import { ReferenceDataStore } from './store/reference-data.store';
import { BalanceStore } from './store/balance.store';
import { ReferenceData } from './domain/reference-data';
import { COLLECTIONS, ORDER_INDEXES, ORDER_SHARDING } from './store/indexes';
import { orderMigrations } from './store/migrations';
import { OrderCommands } from './domain/orders.use-cases';
import { Books } from './domain/books.use-cases';
import { OrderEventsProducer } from './messaging/order-events.producer';
import { startBalanceLinesConsumer } from './messaging/balance-lines.consumer';
import { mountRoutes } from './http/router';
import type { OrderDocument } from './store/order.document';
import type { ReportDocument } from './store/report.document';
import { ReportsStore } from './store/reports.store';
import { ReportSourcesStore } from './store/report-sources';
import { ReportFilesStore } from './store/report-files';
import { ReportRunner } from './domain/report-runner';
import { ReportCommands } from './domain/reports.use-cases';
import { ReportEventsProducer } from './messaging/report-events.producer';

/**
 * Orders' migration steps as data: a release's record of one is read by today's runner (test-e2e contracts), which
 * only settles them. The backfill a step does is the service's own (wired in start()), never run from here.
 */
const inServiceOnly = () => Promise.reject(new Error("a migration's work runs in the orders service only"));
export const ORDER_MIGRATIONS = orderMigrations({ backfill: inServiceOnly, reserveExternalId: inServiceOnly });

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
        reportEvents: topicName(config.TOPIC_PREFIX, TOPICS.reportEvents),
      };
      const kafka = await runtime.connectKafka([
        { topic: topics.orderEvents, numPartitions: config.ORDER_EVENTS_PARTITIONS },
        { topic: topics.publicEvents, numPartitions: config.ORDER_EVENTS_PARTITIONS },
        { topic: topics.reportEvents, numPartitions: config.ORDER_EVENTS_PARTITIONS },
      ]);
      const producer = await runtime.connectProducer(kafka);

      const orders = new OrdersStore(mongo.db);
      const referenceData = new ReferenceDataStore(mongo.db);
      const books = new Books({ orders, books: new BalanceStore(mongo.db), clock });
      const { app, registry } = runtime.httpApp();
      const relay = runtime.outboxRelay<OrderDocument>({
        collection: orders.collection,
        producer,
        registry,
        shardKeyFields: shardKeyFields(ORDER_SHARDING, COLLECTIONS.orders),
      });
      const commands = new OrderCommands({
        orders,
        referenceData,
        events: new OrderEventsProducer(relay, topics),
        clock,
      });
      const reports = wireReports(runtime, mongo.db, producer, topics.reportEvents, clock);
      if (config.API_ENABLED)
        mountRoutes(app, {
          internalCallers: config.INTERNAL_CALLERS,
          processorSecret: config.PROCESSOR_REFUND_WEBHOOK_SECRET,
          commands,
          reports: reports.commands,
          referenceData: new ReferenceData(referenceData, clock),
          books,
          clock,
        });
      if (config.CONSUMERS_ENABLED) await consumeBalanceLines(runtime, kafka, registry, books, topics.orderEvents);
      if (config.SWEEPERS_ENABLED) {
        relay.start();
        sweepUncountedLines(runtime, books);
        reports.startSweepers();
        await runtime.runMigrations(
          mongo.db,
          orderMigrations({
            backfill: async (order) => {
              await books.backfillOrder(order);
            },
            reserveExternalId: (order) => orders.reserveExternalIdOf(order, clock()),
          }),
        );
      }
      const server = await runtime.listen(app);
      return { url: server.url };
    },

    stop: () => runtime.stop(),
  };
}

/**
 * D52's report runs: the store, the runner (kicked by the replica that accepts a report; on sweeper replicas, a poll
 * for reports nobody runs and the 30-day retention) and their events' outbox relay, stopped with the service.
 */
function wireReports(
  runtime: ServiceRuntime<Config>,
  db: Db,
  producer: EventProducer,
  topic: string,
  clock: () => Date,
): { commands: ReportCommands; startSweepers(): void } {
  const { config, logger } = runtime;
  const reports = new ReportsStore(db);
  const files = new ReportFilesStore(db);
  // A relay of its own, without the outbox metrics: the orders relay's gauges already hold those names.
  const relay = new OutboxRelay<ReportDocument>({
    collection: reports.collection,
    producer,
    logger,
    sweepIntervalMs: config.OUTBOX_SWEEP_INTERVAL_MS,
    shardKeyFields: shardKeyFields(ORDER_SHARDING, COLLECTIONS.reports),
  });
  const runner = new ReportRunner({
    reports,
    sources: new ReportSourcesStore(db),
    files,
    events: new ReportEventsProducer(relay, topic),
    clock,
    leaseMs: config.REPORT_LEASE_MS,
    onError: (err, reportId) => logger.warn({ err, reportId }, 'report run failed'),
  });
  const sweep = new PeriodicTask(
    async () => {
      await runner.sweepExpired();
      await runner.poll();
    },
    config.REPORT_POLL_INTERVAL_MS,
    (err) => logger.warn({ err }, 'report poll failed; will retry'),
  );
  runtime.onStop('report runs', () => runner.stop());
  return {
    commands: new ReportCommands({ reports, files, runner, clock }),
    startSweepers: () => {
      runtime.runInBackground('report events relay', relay);
      runtime.runInBackground('report poll', sweep);
    },
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
    hooks: metrics.hooksFor(groupId),
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
