import type { Admin, Kafka } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  numPartitions: number;
  /** Topic-level configs, e.g. retention.ms for the retry tiers. */
  configs?: Record<string, string>;
}

/**
 * Creates missing topics with their partition counts (existing topics are left as they are) and returns
 * only once the broker serves metadata for every partition of every topic with a leader. Without that wait a
 * consumer subscribing right after can be told "This server does not host this topic-partition": when two
 * services create the same topic at once, the loser sees it in the topic list before its broker's metadata
 * cache has it, and kafkajs does not retry that answer in subscribe(). Retried with backoff for about 35 s
 * (20 tries): right after a broker starts, or on a busy machine, the controller answers that way for a while,
 * and a service that gave up would only be restarted to try again.
 */
export async function ensureTopics(kafka: Kafka, specs: readonly TopicSpec[], replicationFactor = 1, attempts = 20): Promise<void> {
  await withBackoff(attempts, async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await createMissing(admin, specs, replicationFactor);
      await assertServed(admin, specs);
    } finally {
      await admin.disconnect();
    }
  });
}

async function createMissing(admin: Admin, specs: readonly TopicSpec[], replicationFactor: number): Promise<void> {
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
}

async function assertServed(admin: Admin, specs: readonly TopicSpec[]): Promise<void> {
  if (specs.length === 0) return;
  const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) });
  for (const spec of specs) {
    const partitions = topics.find((t) => t.name === spec.topic)?.partitions ?? [];
    const unled = partitions.filter((p) => p.partitionErrorCode !== 0 || p.leader < 0);
    if (partitions.length === 0 || unled.length > 0) {
      throw new Error(`topic ${spec.topic} is not served yet (${partitions.length} partitions, ${unled.length} without a leader)`);
    }
  }
}

/**
 * Runs `attempt` until it resolves or `attempts` tries have failed, waiting 200 ms, 400 ms, … up to 2 s in between.
 */
async function withBackoff<T>(attempts: number, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** n)));
    }
  }
}
