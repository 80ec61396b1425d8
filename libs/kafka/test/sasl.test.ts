import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionKafka, startLocalKafka, type LocalKafka } from '@checkout/engines';
import { eventually } from '@checkout/testing';
import { createEventProducer, createKafka, ensureTopics, topicOffsets } from '../src/index';
import { readTopic } from '../src/testing';

// Anyone who reached the broker could publish a forged session event that the dispatcher
// would sign with the merchant's real secret. Brokers that require SASL SCRAM refuse a client without the
// credentials, and libs/kafka speaks SCRAM. This file runs a broker of its own that requires SCRAM-SHA-512.

const user = { username: 'checkout-test', password: randomBytes(18).toString('base64url') };
let runDir: string;
let broker: LocalKafka;

beforeAll(async () => {
  runDir = await mkdtemp(join(tmpdir(), 'kafka-sasl-'));
  broker = await startLocalKafka({ libs: await provisionKafka(), runDir, deadlineMs: 120_000, scram: user });
}, 180_000);

afterAll(async () => {
  await broker?.stop();
  if (runDir) await rm(runDir, { recursive: true, force: true });
});

describe('Kafka with SASL SCRAM-SHA-512', () => {
  it('When a client has the credentials, then it creates a topic, produces and consumes', async () => {
    const kafka = createKafka({
      brokers: broker.brokers,
      clientId: 'sasl-ok',
      sasl: { mechanism: 'scram-sha-512', ...user },
    });
    const topic = `sasl-${randomBytes(4).toString('hex')}`;
    await ensureTopics(kafka, [{ topic, numPartitions: 1 }]);
    const received: string[] = [];
    const probe = await readTopic({
      kafka,
      topic,
      groupId: `${topic}.probe`,
      onMessage: (message) => void received.push(message.value ?? ''),
    });
    const producer = createEventProducer(kafka);
    try {
      await producer.send([{ topic, key: 'k', value: 'authenticated' }]);
      await eventually(async () => received.includes('authenticated'), {
        deadlineMs: 30_000,
        description: 'message consumed',
      });
    } finally {
      await producer.disconnect();
      await probe.stop();
    }
  });

  it.each([
    ['no credentials', undefined],
    [
      'a wrong password',
      { mechanism: 'scram-sha-512' as const, username: user.username, password: `${user.password}x` },
    ],
  ])(
    'When a client has %s, then the broker refuses it and nothing is written',
    async (_label, sasl) => {
      const trusted = createKafka({
        brokers: broker.brokers,
        clientId: 'sasl-ok',
        sasl: { mechanism: 'scram-sha-512', ...user },
      });
      const topic = `forged-${randomBytes(4).toString('hex')}`;
      await ensureTopics(trusted, [{ topic, numPartitions: 1 }]);
      const kafka = createKafka({
        brokers: broker.brokers,
        clientId: 'sasl-refused',
        requestTimeoutMs: 3_000,
        ...(sasl && { sasl }),
      });
      const producer = createEventProducer(kafka);
      await expect(producer.send([{ topic, key: 'k', value: 'forged' }])).rejects.toThrow();
      await producer.disconnect().catch(() => {});
      // The topic exists and the trusted client reads it: it holds nothing.
      expect([...(await topicOffsets(trusted, topic)).values()]).toEqual([{ low: 0, high: 0 }]);
    },
    60_000,
  );
});
