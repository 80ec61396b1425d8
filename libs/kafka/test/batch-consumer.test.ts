import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import {
  createEventProducer,
  createKafka,
  ensureTopics,
  runBatchConsumer,
  type BatchConsumerOptions,
  type EventProducer,
  type KafkaClient,
  type RunningConsumer,
} from '../src/index';
import { CONSUMER_GROUP_SETTINGS } from '../src/group-member';
import { kafkajsOf } from '../src/kafkajs';
import { engines, isolatedNames, logger } from './support';

// runBatchConsumer: a batch's offsets are committed only once the work it started is done, in order,
// while later batches flow on; a batch whose work fails is fetched again. Deadlines are long because the
// broker-restart tests may restart the shared broker while this file runs.

const { prefix } = isolatedNames('batch');
let kafka: KafkaClient;
let producer: EventProducer;
const running: RunningConsumer[] = [];

async function committed(groupId: string, topic: string): Promise<number> {
  const admin = kafkajsOf(kafka).admin();
  await admin.connect();
  try {
    const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return Number(entry?.partitions[0]?.offset ?? -1);
  } finally {
    await admin.disconnect();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve = () => {};
  let reject: (err: Error) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A batch consumer of `{id}` messages in a group of its own, stopped after the file. */
async function consume(
  topic: string,
  groupId: string,
  handleBatch: BatchConsumerOptions<{ id: string }>['handleBatch'],
): Promise<void> {
  running.push(
    await runBatchConsumer<{ id: string }>({
      kafka,
      groupId,
      topics: [topic],
      logger,
      parse: (raw) => ({ ok: true, value: raw as { id: string } }),
      handleBatch,
    }),
  );
}

const send = (topic: string, ids: string[]) =>
  producer.send(ids.map((id) => ({ topic, key: 'k', value: JSON.stringify({ id }) })));

beforeAll(async () => {
  kafka = createKafka({ brokers: engines().kafkaBrokers, clientId: 'batch-consumer-test', logger });
  await ensureTopics(kafka, [
    { topic: `${prefix}.order`, numPartitions: 1 },
    { topic: `${prefix}.fail`, numPartitions: 1 },
    { topic: `${prefix}.slow`, numPartitions: 1 },
  ]);
  producer = createEventProducer(kafka);
  await producer.connect();
});

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop()));
  await producer?.disconnect();
});

describe('runBatchConsumer', () => {
  it('When a batch’s work is still running, then the next batch is handled, and the offsets are committed only once the earlier work is done', async () => {
    const topic = `${prefix}.order`;
    const groupId = `${prefix}.order-group`;
    const seen: string[][] = [];
    const work: Array<ReturnType<typeof deferred>> = [];
    await consume(topic, groupId, async (messages) => {
      seen.push(messages.map((m) => m.value.id));
      const done = deferred();
      work.push(done);
      return { done: done.promise };
    });
    await send(topic, ['a1', 'a2']);
    await eventually(() => seen.flat().includes('a2'), { deadlineMs: 60_000, description: 'the first batch' });
    await send(topic, ['b1']);
    await eventually(() => seen.flat().includes('b1'), {
      deadlineMs: 60_000,
      description: 'the second batch while the first is still at work',
    });
    expect(await committed(groupId, topic)).toBe(-1);

    // The later batches finishing first commit nothing: offsets move in order. The consumer's reaction to each
    // `done` was registered before this await's, so once the awaited promises have settled it has decided; the
    // broker's committed offset is read after that.
    const later = work.slice(1);
    for (const batch of later) batch.resolve();
    await Promise.all(later.map((batch) => batch.promise));
    expect(await committed(groupId, topic)).toBe(-1);
    work[0]?.resolve();
    await eventually(async () => (await committed(groupId, topic)) === 3, {
      deadlineMs: 30_000,
      description: 'both batches committed',
    });
  }, 120_000);

  it('When a batch’s work fails after the handler returned, then its messages are fetched again', async () => {
    const topic = `${prefix}.fail`;
    const seen: string[] = [];
    let failedOnce = false;
    await consume(topic, `${prefix}.fail-group`, async (messages) => {
      seen.push(...messages.map((m) => m.value.id));
      const fail = !failedOnce;
      failedOnce = true;
      return { done: fail ? Promise.reject(new Error('insert failed')) : Promise.resolve() };
    });
    await send(topic, ['c1', 'c2']);
    await eventually(() => seen.filter((id) => id === 'c1').length === 2, {
      deadlineMs: 60_000,
      description: 'the failed batch fetched again',
    });
    expect(seen.filter((id) => id === 'c2')).toHaveLength(2);
    await eventually(async () => (await committed(`${prefix}.fail-group`, topic)) === 2, {
      deadlineMs: 30_000,
      description: 'the batch committed once done',
    });
  }, 120_000);

  it('When two batches in hand fail one after the other, then both are fetched again: the failure of the later one never skips the earlier batch (at least once)', async () => {
    const topic = `${prefix}.fail-two`;
    const groupId = `${prefix}.fail-two-group`;
    await ensureTopics(kafka, [{ topic, numPartitions: 1 }]);
    const seen: string[] = [];
    const work: Array<ReturnType<typeof deferred>> = [];
    await consume(topic, groupId, async (messages) => {
      seen.push(...messages.map((m) => m.value.id));
      if (work.length >= 2) return { done: Promise.resolve() };
      const done = deferred();
      work.push(done);
      return { done: done.promise };
    });
    await send(topic, ['d1']);
    await eventually(() => seen.includes('d1'), { deadlineMs: 60_000, description: 'the first batch' });
    await send(topic, ['e1']);
    await eventually(() => seen.includes('e1'), {
      deadlineMs: 60_000,
      description: 'the second batch while the first is in hand',
    });
    work[0]?.reject(new Error('insert failed'));
    work[1]?.reject(new Error('insert failed'));
    await eventually(
      () => seen.filter((id) => id === 'd1').length === 2 && seen.filter((id) => id === 'e1').length === 2,
      { deadlineMs: 60_000, description: 'both batches fetched again' },
    );
    await eventually(async () => (await committed(groupId, topic)) === 2, {
      deadlineMs: 30_000,
      description: 'both committed once done',
    });
  }, 120_000);

  it('When the handler itself takes longer than the group session (it waits for room), then the member stays in the group and the batch is handled once', async () => {
    const topic = `${prefix}.slow`;
    const groupId = `${prefix}.slow-group`;
    const seen: string[] = [];
    let handlerReturned = false;
    await consume(topic, groupId, async (messages) => {
      seen.push(...messages.map((m) => m.value.id));
      // The wait is the condition under test: without heartbeats meanwhile, the coordinator drops the member.
      await new Promise((resolve) => setTimeout(resolve, CONSUMER_GROUP_SETTINGS.sessionTimeout + 3_000));
      handlerReturned = true;
      return { done: Promise.resolve() };
    });
    await send(topic, ['s1']);
    await eventually(() => handlerReturned, { deadlineMs: 60_000, description: 'the slow handler to return' });
    await eventually(async () => (await committed(groupId, topic)) === 1, {
      deadlineMs: 30_000,
      description: 'the slow batch committed',
    });
    expect(seen).toEqual(['s1']);
  }, 120_000);
});
