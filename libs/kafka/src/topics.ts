import type { Kafka } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  numPartitions: number;
  /** Topic-level configs, e.g. retention.ms for the retry tiers. */
  configs?: Record<string, string>;
}

/**
 * Creates missing topics with their partition counts; existing topics are left as they are. Retried: right
 * after a broker starts, or while another process creates the same topics, the controller can briefly
 * answer that it does not host the partition yet.
 */
export async function ensureTopics(kafka: Kafka, specs: readonly TopicSpec[], replicationFactor = 1, attempts = 8): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await createMissing(kafka, specs, replicationFactor);
      return;
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)));
    }
  }
}

async function createMissing(kafka: Kafka, specs: readonly TopicSpec[], replicationFactor: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.topic));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({
        topic: s.topic,
        numPartitions: s.numPartitions,
        replicationFactor,
        configEntries: Object.entries(s.configs ?? {}).map(([name, value]) => ({ name, value })),
      })),
    });
  } finally {
    await admin.disconnect();
  }
}
