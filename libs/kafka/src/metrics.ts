import type { Admin } from 'kafkajs';
import type { Collection, Document, Filter } from '@checkout/mongo';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { OutboxFields, OutboxMetrics } from './outbox';
import type { KafkaClient } from './client';
import type { ConsumerHooks } from './group-member';
import { kafkajsOf } from './kafkajs';
import { groupLagWith, highWatermarks } from './topics';

// The messaging metrics an on-call engineer reads first (docs/operations.md, "What to alert on"). Gauges that
// need a broker or database answer are computed when Prometheus scrapes, so they cost nothing between scrapes;
// a scrape during an outage leaves them unset rather than failing the whole /metrics answer.

/** How long a scrape may wait for the broker or the database before it leaves these gauges out. */
const SCRAPE_BUDGET_MS = 2_000;

async function withinBudget<T>(work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), SCRAPE_BUDGET_MS)));
  try {
    return await Promise.race([work.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Outbox lag (oldest unpublished event) and unpublished count of one aggregate collection. */
export function registerOutboxMetrics<D extends Document & OutboxFields>(
  registry: Registry,
  collection: Collection<D>,
): OutboxMetrics {
  const pending = { outboxPending: true } as Filter<D>;
  new Gauge({
    name: 'outbox_unpublished_events',
    help: 'Documents whose outbox holds events not yet published to Kafka',
    registers: [registry],
    async collect() {
      const count = await withinBudget(collection.countDocuments(pending));
      if (count !== undefined) this.set(count);
    },
  });
  new Gauge({
    name: 'outbox_oldest_unpublished_age_seconds',
    help: 'Age of the oldest event written to an outbox and not yet published (0 when none waits)',
    registers: [registry],
    async collect() {
      // Pending documents are few (the fast path publishes right after each write); 1,000 bounds a backlog.
      const docs = await withinBudget(
        collection
          .find(pending, { projection: { outbox: 1 } })
          .limit(1_000)
          .toArray(),
      );
      if (docs === undefined) return;
      const oldest = Math.min(
        ...docs.flatMap((doc) => (doc.outbox as OutboxFields['outbox']).map((entry) => entry.createdAt.getTime())),
      );
      this.set(Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0);
    },
  });
  return {
    publishDelay: new Histogram({
      name: 'outbox_publish_delay_seconds',
      help: 'Time from an event being written with its change to Kafka acknowledging it, by path (fast, sweep)',
      labelNames: ['path'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    publishFailures: new Counter({
      name: 'outbox_publish_failures_total',
      help: 'Outbox publishes that failed, by path (fast: right after the write; sweep: the periodic republish)',
      labelNames: ['path'],
      registers: [registry],
    }),
  };
}

export interface ConsumerMetrics {
  /**
   * What a consumer of `group` reports here: each replacement started after kafkajs gave one up (onRestart), and
   * each message's age as it reaches the handler (onReceived).
   */
  hooksFor(group: string): ConsumerHooks;
}

/** Restarts and message ages per group: what each consumer reports of itself through its hooks. */
function consumerHookMetrics(registry: Registry): ConsumerMetrics {
  const restarts = new Counter({
    name: 'kafka_consumer_restarts_total',
    help: 'Consumers replaced after a crash kafkajs would not recover from, by group',
    labelNames: ['group'],
    registers: [registry],
  });
  const ages = new Histogram({
    name: 'kafka_consumer_message_age_seconds',
    help: "Time from a message's send (its record timestamp, set by its producer) to its group's handler, by group and topic",
    labelNames: ['group', 'topic'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  return {
    hooksFor: (group) => ({
      onRestart: () => restarts.inc({ group }),
      // The sender's clock and ours may disagree by a little: a message "from the future" counts as just sent.
      onReceived: (topic, ageMs) => ages.observe({ group, topic }, Math.max(0, ageMs) / 1000),
    }),
  };
}

/**
 * Restarts and message ages per group (hooksFor), the lag of each group on its topics, and the depth of topics nobody
 * consumes (DLQ).
 */
export function registerConsumerMetrics(
  registry: Registry,
  kafka: KafkaClient,
  options: { groups: { groupId: string; topics: string[] }[]; depthTopics?: string[] },
): ConsumerMetrics & { close(): Promise<void> } {
  const hooks = consumerHookMetrics(registry);
  let admin: Admin | undefined;
  let connected: Promise<void> | undefined;
  const connectedAdmin = async (): Promise<Admin> => {
    admin ??= kafkajsOf(kafka).admin({ retry: { retries: 0 } });
    connected ??= admin.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    });
    await connected;
    return admin;
  };

  /** A gauge recomputed from the broker at each scrape; left empty when the broker does not answer in time. */
  const brokerGauge = <L extends string>(
    config: { name: string; help: string; labelNames: L[] },
    read: (admin: Admin, set: (labels: Record<L, string>, value: bigint) => void) => Promise<void>,
  ) =>
    new Gauge<L>({
      ...config,
      registers: [registry],
      async collect() {
        this.reset();
        await withinBudget(
          (async () =>
            read(await connectedAdmin(), (labels, value) =>
              this.set(labels as Partial<Record<L, string>>, Number(value)),
            ))(),
        );
      },
    });

  brokerGauge(
    {
      name: 'kafka_consumer_group_lag',
      help: 'Messages on a topic that a consumer group has not committed yet, by group and topic',
      labelNames: ['group', 'topic'],
    },
    async (a, set) => {
      for (const { groupId, topics } of options.groups) {
        for (const [topic, lag] of await groupLagWith(a, groupId, topics)) set({ group: groupId, topic }, lag);
      }
    },
  );
  brokerGauge(
    {
      name: 'kafka_topic_messages',
      help: 'Messages retained on a topic that no consumer group reads, such as the webhook dead-letter topic',
      labelNames: ['topic'],
    },
    async (a, set) => {
      for (const topic of options.depthTopics ?? []) {
        let depth = 0n;
        for (const { high, low } of (await highWatermarks(a, topic)).values()) depth += high - low;
        set({ topic }, depth);
      }
    },
  );
  return {
    ...hooks,
    async close() {
      if (connected) await admin?.disconnect().catch(() => {});
    },
  };
}
