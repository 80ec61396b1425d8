import type { Producer } from 'kafkajs';
import type { KafkaClient } from './client';
import { kafkajsOf } from './kafkajs';

export interface OutgoingMessage {
  topic: string;
  key: string;
  value: string;
  headers?: Record<string, string>;
}

/**
 * Kafka sends a producer made (one per send: one batch, whatever it holds) and the messages in them: the Kafka
 * half of an operation's round-trip budget (issue 13), asserted by tests and printed by the bench, like
 * CommandCounter (@checkout/mongo) for the database.
 */
export class SendCounter {
  sends = 0;
  messages = 0;

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

export interface EventProducer {
  connect(): Promise<void>;
  send(messages: readonly OutgoingMessage[]): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * acks=all: a message the broker acknowledged is on every in-sync replica. Retries are bounded so a send during
 * a broker outage fails within seconds; the outbox keeps the event and the relay tries again. With one request
 * in flight per broker, a caller's sends reach a partition in the order it made them, retries included.
 *
 * Not kafkajs' idempotent mode, on purpose: it can lose an acknowledged message. It numbers each batch per
 * partition and, when a request fails, takes the numbers back (producer/sendMessages.js), even when only the
 * answer was lost (a timeout, a broker that appended the batch and went down before answering). The next
 * batch to that partition, often another caller's message sent during the retry's backoff, then carries the
 * numbers of a batch the broker already holds, and the broker acknowledges it as a duplicate without writing
 * it (it matches duplicates by sequence range alone). Java's client bumps its epoch there (KIP-360); kafkajs
 * does not. Without it a retry may write a message twice, which every consumer already tolerates: the outbox
 * publishes at least once, and consumers deduplicate by event id or by revision.
 */
export function createEventProducer(kafka: KafkaClient, options: { sendCounter?: SendCounter } = {}): EventProducer {
  const producer: Producer = kafkajsOf(kafka).producer({
    idempotent: false,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: 6 },
  });
  let connected: Promise<void> | undefined;
  return {
    connect() {
      connected ??= producer.connect().catch((err: unknown) => {
        connected = undefined;
        throw err;
      });
      return connected;
    },
    async send(messages) {
      await this.connect();
      const byTopic = new Map<string, OutgoingMessage[]>();
      for (const m of messages) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
      await producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, list]) => ({
          topic,
          messages: list.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
        })),
      });
      options.sendCounter?.record(messages.length);
    },
    async disconnect() {
      connected = undefined;
      await producer.disconnect();
    },
  };
}
