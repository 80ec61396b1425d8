// The lib's test helpers (`@checkout/kafka/testing`): production code never imports this entry point (a lint rule).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { KafkaClient } from './client';
import { receivedMessage, type ReceivedMessage } from './messages';
import { kafkajsGroupsOf } from './kafkajs';
import { createdProducers, sentBatches } from './observed';
import type { EventProducer } from './producer';

/** The counter whose watch() the current call runs in, if any, and the counter of each producer made in one. */
const watching = new AsyncLocalStorage<SendCounter>();
const countedBy = new WeakMap<EventProducer, SendCounter>();
createdProducers.subscribe((producer) => {
  const counter = watching.getStore();
  if (counter) countedBy.set(producer as EventProducer, counter);
});
sentBatches.subscribe((sent) => {
  const { producer, messages } = sent as { producer: EventProducer; messages: number };
  countedBy.get(producer)?.record(messages);
});

/**
 * Kafka sends a producer made (one per send: one batch, whatever it holds) and the messages in them: the Kafka
 * half of an operation's round-trip budget, asserted by tests and printed by the bench, like CommandCounter
 * (@checkout/mongo/testing) for the database. A service is counted from outside: `await counter.watch(() =>
 * app.start())` counts the producers createEventProducer makes during its start.
 */
export class SendCounter {
  sends = 0;
  messages = 0;

  /** Runs `fn` (a service's start, a test's own createEventProducer) and counts the producers made in it. */
  watch<T>(fn: () => Promise<T>): Promise<T> {
    return watching.run(this, fn);
  }

  record(messages: number): void {
    this.sends += 1;
    this.messages += messages;
  }

  /** The sends `fn` caused (and any other send of the counted producers meanwhile). */
  async during<T>(fn: () => Promise<T>): Promise<{ result: T; sends: number; messages: number }> {
    const [sends, messages] = [this.sends, this.messages];
    const result = await fn();
    return { result, sends: this.sends - sends, messages: this.messages - messages };
  }
}

/**
 * Reads a whole topic from the beginning into `onMessage`, in a group of its own (test probes, benchmarks,
 * operator tools). `joined` resolves once the group has its partitions, so what is sent after it is seen soon.
 */
export async function readTopic(options: {
  kafka: KafkaClient;
  topic: string;
  groupId: string;
  onMessage: (message: ReceivedMessage) => void;
  /** Longest wait of one fetch for new messages (default 100 ms: probes want to see messages soon). */
  maxWaitTimeInMs?: number;
}): Promise<{ joined: Promise<void>; stop(): Promise<void> }> {
  const consumer = kafkajsGroupsOf(options.kafka).consumer({
    groupId: options.groupId,
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: options.maxWaitTimeInMs ?? 100,
  });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.connect();
  await consumer.subscribe({ topic: options.topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      options.onMessage(receivedMessage(topic, partition, message));
    },
  });
  return { joined, stop: () => consumer.disconnect() };
}
