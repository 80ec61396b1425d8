import type { Admin } from 'kafkajs';
import type { KafkaClient } from './client';
import { kafkajsOf } from './kafkajs';

export interface TopicSpec {
  topic: string;
  numPartitions: number;
  /** Topic-level configs, e.g. retention.ms for the retry tiers. */
  configs?: Record<string, string>;
}

/**
 * Creates missing topics with their partition counts (existing topics are left as they are) and returns
 * only once every partition's leader serves it. Without that wait a consumer subscribing right after can be
 * told "This server does not host this topic-partition": when two services create the same topic at once, the
 * loser sees it in the topic list before its broker's metadata cache has it, and kafkajs does not retry that
 * answer in subscribe(). Metadata naming a leader is not enough either: a broker answers metadata from its
 * cache before its replica manager has become the partition's leader, and until it has it refuses a produce
 * or a ListOffsets with NOT_LEADER_OR_FOLLOWER; on a busy machine for longer than a producer's retries. So a
 * topic counts as served once a ListOffsets to each of its leaders answers. Retried with backoff for about 35 s
 * (20 tries): right after a broker starts, or on a busy machine, the controller answers that way for a while,
 * and a service that gave up would only be restarted to try again. Returns each topic's partition count.
 */
export async function ensureTopics(
  kafka: KafkaClient,
  specs: readonly TopicSpec[],
  replicationFactor = 1,
  attempts = 20,
): Promise<Map<string, number>> {
  return withBackoff(attempts, async () => {
    const admin = kafkajsOf(kafka).admin();
    await admin.connect();
    try {
      await createMissing(admin, specs, replicationFactor);
      const counts = await assertLed(admin, specs);
      await assertLeadersAnswer(admin, specs);
      return counts;
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

/** Throws unless every partition has a leader; returns each topic's partition count (which may exceed the spec's). */
async function assertLed(admin: Admin, specs: readonly TopicSpec[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (specs.length === 0) return counts;
  const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) });
  for (const spec of specs) {
    const partitions = topics.find((t) => t.name === spec.topic)?.partitions ?? [];
    const unled = partitions.filter((p) => p.partitionErrorCode !== 0 || p.leader < 0);
    if (partitions.length === 0 || unled.length > 0) {
      throw new Error(
        `topic ${spec.topic} is not served yet (${partitions.length} partitions, ${unled.length} without a leader)`,
      );
    }
    counts.set(spec.topic, partitions.length);
  }
  return counts;
}

/**
 * Throws unless each partition's leader answers a ListOffsets for it: the broker's replica manager, not only its
 * metadata cache, leads it. kafkajs' fetchTopicOffsets does not retry NOT_LEADER_OR_FOLLOWER; withBackoff does.
 * Every request is let finish before the first refusal is thrown: the admin is disconnected next, and an answer
 * arriving after that is logged by kafkajs as a warning ("Response without match") for each one.
 */
async function assertLeadersAnswer(admin: Admin, specs: readonly TopicSpec[]): Promise<void> {
  const answers = await Promise.allSettled(specs.map((s) => admin.fetchTopicOffsets(s.topic)));
  const refused = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected');
  if (refused) throw refused.reason;
}

/** Each partition's first retained offset and high-water mark (the offset the next message will get), right now. */
export async function topicOffsets(
  kafka: KafkaClient,
  topic: string,
): Promise<Map<number, { low: number; high: number }>> {
  const admin = kafkajsOf(kafka).admin();
  await admin.connect();
  try {
    return new Map(
      (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, { low: Number(p.low), high: Number(p.high) }]),
    );
  } finally {
    await admin.disconnect();
  }
}

/** Each partition's first retained offset and high-water mark, exactly (BigInt), on an admin connection in hand. */
export async function highWatermarks(admin: Admin, topic: string): Promise<Map<number, { high: bigint; low: bigint }>> {
  return new Map(
    (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, { high: BigInt(p.high), low: BigInt(p.low) }]),
  );
}

/**
 * Messages on each topic that `groupId` has not committed yet: per partition, the high-water mark minus the
 * committed offset (nothing committed: the group starts from the beginning, so every retained message waits).
 * What the lag gauge shows, and what a drain waits to see reach zero.
 */
export async function groupLagWith(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<Map<string, bigint>> {
  const lag = new Map<string, bigint>();
  for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics: [...topics] })) {
    const ends = await highWatermarks(admin, topic);
    let waiting = 0n;
    for (const { partition, offset } of partitions) {
      const end = ends.get(partition);
      if (!end) continue;
      const from = offset === '-1' ? end.low : BigInt(offset);
      if (end.high > from) waiting += end.high - from;
    }
    lag.set(topic, waiting);
  }
  return lag;
}

/** groupLagWith on an admin connection of its own (a drain, a test). */
export async function consumerGroupLag(
  kafka: KafkaClient,
  groupId: string,
  topics: readonly string[],
): Promise<Map<string, bigint>> {
  const admin = kafkajsOf(kafka).admin();
  await admin.connect();
  try {
    return await groupLagWith(admin, groupId, topics);
  } finally {
    await admin.disconnect();
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

/**
 * Each consumer group's state right now ("Stable", "PreparingRebalance", "CompletingRebalance", "Empty", "Dead")
 * and its member count. Outside "Stable" a group's partitions have no owner: nothing is consumed until the
 * rebalance ends (kafkajs' eager protocol revokes every partition). The rollout soak samples it.
 */
export async function consumerGroupStates(
  kafka: KafkaClient,
  groupIds: readonly string[],
): Promise<Map<string, { state: string; members: number }>> {
  const admin = kafkajsOf(kafka).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([...groupIds]);
    return new Map(groups.map((g) => [g.groupId, { state: g.state, members: g.members.length }]));
  } finally {
    await admin.disconnect();
  }
}
