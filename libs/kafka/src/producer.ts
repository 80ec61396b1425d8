import type { Producer } from 'kafkajs';
import { GroupCommit } from '@checkout/coalesce';
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
 * half of an operation's round-trip budget, asserted by tests and printed by the bench, like
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
  const connect = () => {
    connected ??= producer.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    });
    return connected;
  };
  const sendBatch = async (messages: readonly OutgoingMessage[]) => {
    await connect();
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const m of messages) {
      const list = byTopic.get(m.topic);
      if (list) list.push(m);
      else byTopic.set(m.topic, [m]);
    }
    await producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({
        topic,
        messages: list.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
      })),
    });
    options.sendCounter?.record(messages.length);
  };
  // Sends made while one is in flight wait for it anyway (one request in flight); they go together as the next
  // request, so under concurrency the broker handles one produce request for many callers. If that request is
  // refused for what it holds (a non-retriable error, such as a message too large), each caller's messages are
  // tried on their own, so one bad message fails only its own caller; if the broker could not be reached
  // (retriable at its root), every caller fails at once, as each would have on its own.
  const sends = new GroupCommit<readonly OutgoingMessage[], void>(
    async (callers) => {
      await sendBatch(callers.flat());
      return callers.map((): void => undefined);
    },
    { retryAloneWhen: refusedForItsContent },
  );
  return {
    connect,
    send(messages) {
      return messages.length === 0 ? Promise.resolve() : sends.add(messages);
    },
    async disconnect() {
      connected = undefined;
      await producer.disconnect();
    },
  };
}

/** Whether kafkajs failed a send for what it held rather than for reaching the broker: its root cause is not retriable. */
function refusedForItsContent(err: unknown): boolean {
  let root = err;
  for (let depth = 0; depth < 5 && root instanceof Error && root.cause !== undefined; depth += 1) root = root.cause;
  return (root as { retriable?: unknown } | null)?.retriable === false;
}
