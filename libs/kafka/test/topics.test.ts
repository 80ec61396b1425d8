import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { eventually } from '@checkout/testing';
import {
  createEventProducer,
  createKafka,
  ensureTopics,
  runConsumer,
  type RunningConsumer,
  type KafkaClient,
} from '../src/index';
import { kafkajsOf } from '../src/kafkajs';
import { engines, isolatedNames, logger } from './support';

// Services create the topics they use at start, so two of them often create the same topic at once
// (sessions and the webhook dispatcher both ensure the session-events topic). A consumer that subscribes the
// moment ensureTopics returns must not be told the topic is not hosted: that once stopped a dispatcher from
// starting (CI, 2026-11-21).

const { prefix } = isolatedNames('topics');
const consumers: RunningConsumer[] = [];

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
});

function client(n: number): KafkaClient {
  const { kafkaBrokers, description } = engines();
  if (n === 0) process.stderr.write(`topics test on: ${description}\n`);
  return createKafka({ brokers: kafkaBrokers, clientId: `topics-test-${n}`, logger });
}

describe('ensureTopics', () => {
  it('When four clients ensure overlapping new topics at once, then each returns with every partition led and its leader answering, and each subscribes and consumes at once', async () => {
    const clients = [0, 1, 2, 3].map(client);
    // Each client ensures the shared topic and one of its own, like sessions (session events) and the
    // dispatcher (session events and its retry tiers): the loser of the shared topic's creation fails its whole
    // CreateTopics call after the broker has accepted its own topic, and must still wait for that one.
    const shared = { topic: `${prefix}.shared`, numPartitions: 6 };
    const own = clients.map((_, n) => ({
      topic: `${prefix}.own-${n}`,
      numPartitions: 6,
      configs: { 'retention.ms': '3600000' },
    }));
    await Promise.all(
      clients.map(async (kafka, n) => {
        const specs = [shared, own[n]!];
        await ensureTopics(kafka, specs);
        // Asked once, with no retries: the broker serves every partition of both topics with a leader.
        const admin = kafkajsOf(kafka).admin({ retry: { retries: 0 } });
        await admin.connect();
        const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) });
        expect(topics.flatMap((t) => t.partitions.map((p) => p.leader >= 0 && p.partitionErrorCode === 0))).toEqual(
          Array(12).fill(true),
        );
        // And each leader leads it, not only the metadata: a ListOffsets (what a produce meets too) is answered
        // rather than refused NOT_LEADER_OR_FOLLOWER, which kafkajs' fetchTopicOffsets never retries.
        const offsets = await Promise.all(specs.map((s) => admin.fetchTopicOffsets(s.topic)));
        await admin.disconnect();
        expect(offsets.map((partitions) => partitions.length)).toEqual([6, 6]);
        const received = new Set<string>();
        consumers.push(
          await runConsumer<{ n: number }>({
            kafka,
            groupId: `${prefix}.group-${n}`,
            topics: specs.map((s) => s.topic),
            logger,
            parse: (raw) => ({ ok: true, value: raw as { n: number } }),
            handle: async (_message, context) => {
              received.add(context.topic);
            },
          }),
        );
        const producer = createEventProducer(kafka);
        await producer.send(specs.map((s) => ({ topic: s.topic, key: `k${n}`, value: JSON.stringify({ n }) })));
        await producer.disconnect();
        await eventually(() => received.size === specs.length, { deadlineMs: 60_000 });
      }),
    );
    const admin = kafkajsOf(clients[0]!).admin();
    await admin.connect();
    const all = [shared, ...own];
    const { topics } = await admin.fetchTopicMetadata({ topics: all.map((s) => s.topic) });
    const retention = await admin.describeConfigs({
      resources: [{ type: 2, name: own[0]!.topic, configNames: ['retention.ms'] }],
      includeSynonyms: false,
    });
    await admin.disconnect();
    expect(topics.map((t) => t.partitions.length)).toEqual(all.map(() => 6));
    for (const t of topics)
      for (const p of t.partitions) expect(p.leader, `${t.name}/${p.partitionId}`).toBeGreaterThanOrEqual(0);
    expect(retention.resources[0]?.configEntries[0]?.configValue).toBe('3600000');
  }, 120_000);

  it('When a client ensures nine new topics, three times over, then kafkajs warns of no answer arriving after its admin is gone', async () => {
    // ensureTopics asks every leader for its partitions' offsets and retries while one refuses. Thrown at the first
    // refusal, the admin was disconnected with the other topics' requests in flight, and kafkajs warned "Response
    // without match" for each late answer: the create-topics job's output held lines that were not its report (a
    // full run on a loaded machine).
    // Warnings only: which of kafkajs' errors are retried noise, demoted to debug, is createKafka's logger's to say
    // (client.test.ts).
    const warnings: string[] = [];
    const quietlyRecorded = pino(
      { level: 'warn' },
      { write: (line: string) => void ((JSON.parse(line) as { level: number }).level === 40 && warnings.push(line)) },
    );
    const kafka = createKafka({
      brokers: engines().kafkaBrokers,
      clientId: 'topics-test-quiet',
      logger: quietlyRecorded,
    });
    for (let round = 0; round < 3; round++) {
      const specs = Array.from({ length: 9 }, (_, n) => ({ topic: `${prefix}.quiet-${round}-${n}`, numPartitions: 6 }));
      const counts = await ensureTopics(kafka, specs);
      expect([...counts.values()]).toEqual(Array(9).fill(6));
    }
    expect(warnings).toEqual([]);
  }, 120_000);

  it('When a topic already exists with fewer partitions, then it is left as it is', async () => {
    const kafka = client(4);
    const topic = `${prefix}.existing`;
    await ensureTopics(kafka, [{ topic, numPartitions: 2 }]);
    await ensureTopics(kafka, [{ topic, numPartitions: 8 }]);
    const admin = kafkajsOf(kafka).admin();
    await admin.connect();
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    await admin.disconnect();
    expect(topics[0]?.partitions.length).toBe(2);
  }, 60_000);
});
