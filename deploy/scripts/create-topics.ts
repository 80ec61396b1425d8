// One-shot job: creates every Kafka topic of the platform (ALL_TOPICS) with its partition count, ahead of a
// rollout. Existing topics are left alone (a partition count is never raised behind your back: adding
// partitions moves keys to other partitions and breaks per-session ordering for messages in flight); a topic
// with fewer partitions than planned is reported, and the job fails, so an SRE decides.
//   KAFKA_BROKERS=kafka:9092 node dist/create-topics.mjs            (image)
//   KAFKA_BROKERS=127.0.0.1:9092 npx tsx deploy/scripts/create-topics.ts   (checkout)
// The services also create their own topics at start when missing; this job makes the partition counts and
// the replication factor a deliberate, reviewed choice instead of whatever the first pod to start picked.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { checkKafkaSecurity, env, kafkaConfigShape, kafkaConnection, loadConfig } from '@checkout/config';
import { ALL_TOPICS, TOPIC_KEYS, TOPICS, topicName } from '@checkout/contracts';
import { createKafka, ensureTopics, type TopicSpec } from '@checkout/kafka';
import { createLogger } from '@checkout/logger';

export const TopicsJobConfigSchema = z
  .object({
    ...kafkaConfigShape,
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('pino log level'),
    SESSION_EVENTS_PARTITIONS: env
      .positiveInt(12)
      .describe("Partitions of checkout.session.events (bounds the dispatcher's first-attempt consumer parallelism)"),
    ORDER_EVENTS_PARTITIONS: env
      .positiveInt(6)
      .describe(
        "Partitions of orders.events, orders.public-events and reports.public-events (bound the sessions order-events and the dispatcher's order-public-events and report-events consumer parallelism)",
      ),
    WEBHOOK_RETRY_PARTITIONS: env
      .positiveInt(6)
      .describe('Partitions of each webhooks.retry.N tier and of webhooks.dead-letter'),
    KAFKA_REPLICATION_FACTOR: env.positiveInt(1).describe('Replication factor of created topics (3 in production)'),
    KAFKA_MIN_INSYNC_REPLICAS: env
      .positiveInt(1)
      .describe(
        'min.insync.replicas of created topics: with acks=all a write is acknowledged once this many replicas hold it (2 in production, with replication factor 3: one broker may be down or restarting and none of its acknowledged writes is lost)',
      ),
    DEAD_LETTER_RETENTION_MS: env
      .positiveInt(30 * 24 * 3_600_000)
      .describe('retention.ms of the dead-letter topic (default 30 days: time to replay)'),
  })
  .superRefine(checkKafkaSecurity);
export type TopicsJobConfig = z.output<typeof TopicsJobConfigSchema>;

/**
 * The plan: one spec per topic in ALL_TOPICS, under the optional prefix. Throws if ALL_TOPICS grows a topic this job
 * does not know.
 */
export function topicPlan(
  config: Pick<
    TopicsJobConfig,
    | 'TOPIC_PREFIX'
    | 'SESSION_EVENTS_PARTITIONS'
    | 'ORDER_EVENTS_PARTITIONS'
    | 'WEBHOOK_RETRY_PARTITIONS'
    | 'DEAD_LETTER_RETENTION_MS'
  > &
    Partial<Pick<TopicsJobConfig, 'KAFKA_MIN_INSYNC_REPLICAS'>>,
): TopicSpec[] {
  // Only when asked for: a topic created with the broker's default keeps following the broker's setting.
  const minIsr: Record<string, string> =
    (config.KAFKA_MIN_INSYNC_REPLICAS ?? 1) > 1
      ? { 'min.insync.replicas': String(config.KAFKA_MIN_INSYNC_REPLICAS) }
      : {};
  // Which setting sizes each topic is declared with its key (TOPIC_KEYS), so the docs' topic table, this job and the
  // services' *_PARTITIONS name one plan; only the dead letter has a config of its own.
  const extra: Record<string, Record<string, string>> = {
    [TOPICS.webhookDeadLetter]: { 'retention.ms': String(config.DEAD_LETTER_RETENTION_MS) },
  };
  return ALL_TOPICS.map((name) => {
    const keying = TOPIC_KEYS[name];
    if (!keying) throw new Error(`create-topics: no partition plan for topic ${name}; add it to TOPIC_KEYS`);
    const configs = { ...extra[name], ...minIsr };
    return {
      topic: topicName(config.TOPIC_PREFIX, name),
      numPartitions: config[keying.partitions],
      ...(Object.keys(configs).length > 0 && { configs }),
    };
  });
}

export async function createTopics(
  environment: Record<string, string | undefined>,
): Promise<{ topic: string; partitions: number; planned: number }[]> {
  const config = loadConfig('create-topics', TopicsJobConfigSchema, environment);
  const logger = createLogger('create-topics', { level: config.LOG_LEVEL });
  const kafka = createKafka({
    ...kafkaConnection(config),
    clientId: config.KAFKA_CLIENT_ID ?? 'create-topics',
    logger,
  });
  const plan = topicPlan(config);
  // ensureTopics retries the retriable metadata errors a fresh broker answers with.
  const partitions = await ensureTopics(kafka, plan, config.KAFKA_REPLICATION_FACTOR);
  return plan.map((p) => ({ topic: p.topic, partitions: partitions.get(p.topic) ?? 0, planned: p.numPartitions }));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  createTopics(process.env).then(
    (report) => {
      for (const r of report)
        console.log(
          `${r.topic}\tpartitions=${r.partitions}${r.partitions === r.planned ? '' : `\t(planned ${r.planned})`}`,
        );
      const short = report.filter((r) => r.partitions < r.planned);
      if (short.length > 0) {
        console.error(
          `create-topics: ${short.map((r) => r.topic).join(', ')} ha${short.length === 1 ? 's' : 've'} fewer partitions than planned; raise them deliberately (kafka-topics.sh --alter) if you accept the key remapping`,
        );
        process.exit(2);
      }
      process.exit(0);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
