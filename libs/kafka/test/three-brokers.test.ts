import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionKafka, startLocalKafkaCluster, waitFor, type LocalKafkaCluster } from '@checkout/engines';
import { TOPICS, topicName } from '@checkout/contracts';
import { createTopics } from '../../../deploy/scripts/create-topics';
import { consumerGroupLag, createEventProducer, createKafka, runBatchConsumer } from '../src/index';
import { kafkajsOf } from '../src/kafkajs';
import { isolatedNames, logger } from './support';

// Three KRaft brokers from the same cached jars, the production topic plan (deploy/scripts/create-topics.ts)
// with replication factor 3 and min.insync.replicas 2, and a broker that goes away under a producer (acks=all)
// and a consumer: every acknowledged message is still there and consumed. Starts a cluster of its own (three
// JVMs), whatever KAFKA_BROKERS names, because it stops, restarts and SIGKILLs brokers, which a given cluster (or
// the run's one broker, every file's) does not let it do; so it runs in the chaos tier, alone. It uses no database,
// so MONGODB_URL does not concern it.

let cluster: LocalKafkaCluster | undefined;
let runDir: string | undefined;

beforeAll(async () => {
  const libs = await provisionKafka();
  runDir = await mkdtemp(join(tmpdir(), `checkout-engines-${process.pid}-three-brokers-`));
  cluster = await startLocalKafkaCluster({ libs, runDir, deadlineMs: 150_000, count: 3 });
}, 240_000);

afterAll(async () => {
  // Its data is deleted next: three brokers shutting down together wait on each other (6 s) for nothing.
  await cluster?.kill().catch(() => {});
  if (runDir) await rm(runDir, { recursive: true, force: true });
});

const theCluster = (): LocalKafkaCluster => {
  if (!cluster) throw new Error('cluster not started');
  return cluster;
};

describe('a three-broker KRaft cluster', () => {
  it(
    'When the production topic plan is applied with replication factor 3, then every topic has 3 replicas on 3 brokers and min.insync.replicas 2',
    { timeout: 120_000 },
    async () => {
      const c = theCluster();
      expect(c.brokers).toHaveLength(3);
      expect(c.replicationFactor).toBe(3);
      const { prefix } = isolatedNames('three-brokers-plan');
      const report = await createTopics({
        KAFKA_BROKERS: c.brokers.join(','),
        TOPIC_PREFIX: prefix,
        KAFKA_REPLICATION_FACTOR: '3',
        KAFKA_MIN_INSYNC_REPLICAS: '2',
        LOG_LEVEL: 'silent',
      });
      expect(report.every((r) => r.partitions === r.planned)).toBe(true);

      const admin = kajsAdmin(c.brokers);
      await admin.connect();
      try {
        expect((await admin.describeCluster()).brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
        const topics = report.map((r) => r.topic);
        const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
        for (const topic of metadata) for (const p of topic.partitions) expect(p.replicas.sort()).toEqual([1, 2, 3]);
        const configs = await admin.describeConfigs({
          includeSynonyms: false,
          resources: topics.map((name) => ({ type: 2, name, configNames: ['min.insync.replicas'] })),
        });
        for (const resource of configs.resources)
          expect(resource.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue).toBe('2');
      } finally {
        await admin.disconnect();
      }
    },
  );

  it(
    'When a partition leader stops and starts again under acks=all sends and a consumer, then no acknowledged message is lost',
    { timeout: 180_000 },
    async () => {
      const c = theCluster();
      const { prefix } = isolatedNames('three-brokers-loss');
      await createTopics({
        KAFKA_BROKERS: c.brokers.join(','),
        TOPIC_PREFIX: prefix,
        KAFKA_REPLICATION_FACTOR: '3',
        KAFKA_MIN_INSYNC_REPLICAS: '2',
        LOG_LEVEL: 'silent',
      });
      const topic = topicName(prefix, TOPICS.orderEvents);
      const kafka = createKafka({ brokers: c.brokers, clientId: 'three-brokers-test', logger });
      const producer = createEventProducer(kafka);
      const consumer = kafkajsOf(kafka).consumer({
        groupId: `${prefix}-group`,
        maxWaitTimeInMs: 250,
        sessionTimeout: 10_000,
        heartbeatInterval: 1_000,
      });
      const consumed = new Set<string>();
      const acknowledged = new Set<string>();
      let failedSends = 0;
      await producer.connect();
      await consumer.connect();
      // A broker other than the one that created the topic may not serve its metadata yet (kafkajs does not retry
      // that answer in subscribe(): libs/kafka/src/topics.ts).
      await waitFor('subscribed', () => consumer.subscribe({ topic, fromBeginning: true }).then(() => true), {
        deadlineMs: 30_000,
        intervalMs: 250,
      });
      await consumer.run({
        eachMessage: async ({ message }) => {
          consumed.add(message.value?.toString() ?? '');
        },
      });

      // The leader of partition 0 goes: the one broker whose loss the producer and consumer must ride through.
      const admin = kajsAdmin(c.brokers);
      await admin.connect();
      const leaderId = await waitFor(
        'a leader for partition 0',
        async () =>
          (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions.find((p) => p.partitionId === 0)
            ?.leader,
        {
          deadlineMs: 30_000,
          intervalMs: 250,
        },
      );
      await admin.disconnect();
      const victim = c.nodes.find((n) => n.nodeId === leaderId);
      expect(victim).toBeDefined();

      let sending = true;
      let n = 0;
      const sender = (async () => {
        // Bounded: at most 100,000 sends; a few thousand in practice.
        while (sending && n < 100_000) {
          const value = `m-${n++}`;
          try {
            await producer.send([{ topic, key: `k-${n % 12}`, value }]);
            acknowledged.add(value);
          } catch {
            // Not acknowledged: the caller would retry (the outbox does). It may or may not be on the topic.
            failedSends++;
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      try {
        await waitFor('some messages acknowledged before the stop', () => acknowledged.size >= 50, {
          deadlineMs: 30_000,
          intervalMs: 50,
        });
        await victim?.stop();
        const atStop = acknowledged.size;
        await waitFor('messages acknowledged while a broker is down', () => acknowledged.size >= atStop + 50, {
          deadlineMs: 30_000,
          intervalMs: 50,
        });
        await victim?.start();
        await waitFor('every partition back in sync', async () => (await c.underReplicatedPartitions()) === 0, {
          deadlineMs: 60_000,
          intervalMs: 500,
        });
        const atStart = acknowledged.size;
        await waitFor('messages acknowledged after the restart', () => acknowledged.size >= atStart + 50, {
          deadlineMs: 30_000,
          intervalMs: 50,
        });
      } finally {
        sending = false;
        await sender;
      }
      try {
        await waitFor('every acknowledged message consumed', () => [...acknowledged].every((v) => consumed.has(v)), {
          deadlineMs: 60_000,
          intervalMs: 250,
        });
      } finally {
        await consumer.disconnect().catch(() => {});
        await producer.disconnect().catch(() => {});
      }
      const lost = [...acknowledged].filter((v) => !consumed.has(v));
      console.log(
        `three brokers: ${acknowledged.size} acknowledged, ${failedSends} sends failed (retried by the caller), ${lost.length} lost, broker ${victim?.nodeId} stopped and started`,
      );
      expect(lost).toEqual([]);
    },
  );

  it(
    'When a broker is SIGKILLed, then the other two keep serving acks=all sends (min ISR 2) and it rejoins',
    { timeout: 180_000 },
    async () => {
      const c = theCluster();
      const { prefix } = isolatedNames('three-brokers-kill');
      await createTopics({
        KAFKA_BROKERS: c.brokers.join(','),
        TOPIC_PREFIX: prefix,
        KAFKA_REPLICATION_FACTOR: '3',
        KAFKA_MIN_INSYNC_REPLICAS: '2',
        LOG_LEVEL: 'silent',
      });
      const topic = topicName(prefix, TOPICS.orderEvents);
      const kafka = createKafka({ brokers: c.brokers, clientId: 'three-brokers-kill', logger });
      const producer = createEventProducer(kafka);
      const victim = c.nodes[2];
      try {
        await producer.send([{ topic, key: 'k', value: 'before' }]);
        await victim?.kill();
        await waitFor(
          'a send acknowledged with one broker dead',
          async () => producer.send([{ topic, key: 'k', value: 'during' }]).then(() => true),
          { deadlineMs: 60_000, intervalMs: 500 },
        );
        await victim?.start();
        await waitFor('every partition back in sync', async () => (await c.underReplicatedPartitions()) === 0, {
          deadlineMs: 90_000,
          intervalMs: 500,
        });
      } finally {
        await producer.disconnect().catch(() => {});
      }
    },
  );
});

describe('a batch consumer on a three-broker cluster', () => {
  it(
    'When each broker restarts in turn (the group coordinator moves), then its commits reach the new coordinator and nothing stays uncommitted',
    { timeout: 240_000 },
    async () => {
      const c = theCluster();
      const { prefix } = isolatedNames('three-brokers-commit');
      await createTopics({
        KAFKA_BROKERS: c.brokers.join(','),
        TOPIC_PREFIX: prefix,
        KAFKA_REPLICATION_FACTOR: '3',
        KAFKA_MIN_INSYNC_REPLICAS: '2',
        LOG_LEVEL: 'silent',
      });
      const topic = topicName(prefix, TOPICS.sessionEvents);
      const groupId = `${prefix}-batch`;
      const kafka = createKafka({ brokers: c.brokers, clientId: 'three-brokers-commit', logger });
      const producer = createEventProducer(kafka);
      const seen = new Set<string>();
      const consumer = await runBatchConsumer<{ id: string }>({
        kafka,
        groupId,
        topics: [topic],
        logger,
        parse: (raw) => ({ ok: true, value: raw as { id: string } }),
        handleBatch: async (messages) => {
          for (const m of messages) seen.add(m.value.id);
          return { done: Promise.resolve() };
        },
      });
      let n = 0;
      const sendSome = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const id = `m-${n++}`;
          await producer.send([{ topic, key: `k-${n % 12}`, value: JSON.stringify({ id }) }]);
        }
      };
      const caughtUp = async () => {
        const lag = await consumerGroupLag(kafka, groupId, [topic]);
        return (lag.get(topic) ?? 1n) === 0n;
      };
      try {
        await sendSome(20);
        await waitFor('the group caught up before any restart', caughtUp, { deadlineMs: 60_000, intervalMs: 250 });
        for (const node of c.nodes) {
          await node.stop();
          await node.start();
          await waitFor('every partition back in sync', async () => (await c.underReplicatedPartitions()) === 0, {
            deadlineMs: 60_000,
            intervalMs: 500,
          });
          // Sends that the consumer commits after the move: they must reach the group's new coordinator.
          await sendSome(20);
          await waitFor(`the group caught up after broker ${node.nodeId} restarted`, caughtUp, {
            deadlineMs: 60_000,
            intervalMs: 250,
          });
        }
        expect(seen.size).toBe(n);
      } finally {
        await consumer.stop().catch(() => {});
        await producer.disconnect().catch(() => {});
      }
    },
  );
});

function kajsAdmin(brokers: string[]) {
  return kafkajsOf(createKafka({ brokers, clientId: 'three-brokers-admin', logger })).admin();
}
