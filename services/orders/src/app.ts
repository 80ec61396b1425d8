import type { Logger } from '@checkout/logger';
import { ServiceRuntime } from '@checkout/service';
import { OutboxRelay } from '@checkout/kafka';
import { PeriodicTask, type Db } from '@checkout/mongo';
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
import type { ReportDocument } from './store/report.document';
import { ReportsStore } from './store/reports.store';
import { ReportSourcesStore } from './store/report-sources';
import { ReportFilesStore } from './store/report-files';
import { ReportRunner } from './domain/report-runner';
import { ReportCommands } from './domain/reports.use-cases';
import { ReportEventsProducer } from './messaging/report-events.producer';
import type { EventProducer } from '@checkout/kafka';

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
      const { app, registry } = runtime.httpApp();
      const relay = runtime.outboxRelay<OrderDocument>({ collection: orders.collection, producer, registry });
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
          clock,
        });
      if (config.SWEEPERS_ENABLED) {
        relay.start();
        reports.startSweepers();
        await runtime.runMigrations(mongo.db, ORDER_MIGRATIONS);
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
