import type { KafkaClient } from './client';
import { receivedMessage, type ReceivedMessage } from './messages';
import { kafkajsOf } from './kafkajs';
import { whileRetriable } from './kafkajs-accommodations';

/**
 * Hands `handle` every message of `topic` from where `groupId` stands up to the topic's end at the time of the
 * call, then returns (operator tools such as the dead-letter replay). With `commit`, each message's offset is
 * committed once it is handled, so a second run starts after it; a failing `handle` stops the drain there.
 */
export async function drainTopic(options: {
  kafka: KafkaClient;
  topic: string;
  groupId: string;
  commit: boolean;
  timeoutMs: number;
  handle: (message: ReceivedMessage) => Promise<void>;
}): Promise<void> {
  const { topic, groupId } = options;
  const kafka = kafkajsOf(options.kafka);

  // Where each partition ends now, and where this group stands: partitions with nothing new are already done.
  const admin = kafka.admin();
  await admin.connect();
  const remaining = new Map<number, bigint>(); // partition → offset to reach (exclusive)
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await whileRetriable(
      () => admin.fetchOffsets({ groupId, topics: [topic] }),
      Date.now() + options.timeoutMs,
    );
    for (const end of ends) {
      const mine = committed?.partitions.find((p) => p.partition === end.partition);
      const start = mine && BigInt(mine.offset) >= 0n ? BigInt(mine.offset) : BigInt(end.low);
      if (start < BigInt(end.high)) remaining.set(end.partition, BigInt(end.high));
    }
  } finally {
    await admin.disconnect();
  }
  if (remaining.size === 0) return;

  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false });
  await consumer.connect();
  let finish!: () => void;
  let fail!: (err: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    finish = res;
    fail = rej;
  });
  const timer = setTimeout(
    () => fail(new Error(`${topic}: not drained after ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const end = remaining.get(partition);
        if (end === undefined || BigInt(message.offset) >= end) return;
        try {
          await options.handle(receivedMessage(topic, partition, message));
        } catch (err) {
          fail(err);
          throw err;
        }
        if (options.commit)
          await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
        if (BigInt(message.offset) + 1n >= end) remaining.delete(partition);
        if (remaining.size === 0) finish();
      },
    });
    await done;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect().catch(() => {});
  }
}
