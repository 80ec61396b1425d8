import { Partitioners, type ICustomPartitioner, type Producer } from 'kafkajs';
import { GroupCommit } from '@checkout/coalesce';
import { injectTraceHeaders, startSpan, tracingEnabled, type SpanHandle, type TraceCarrier } from '@checkout/telemetry';
import type { KafkaClient } from './client';
import { kafkajsOf } from './kafkajs';
import { createdProducers, sentBatches } from './observed';

export interface OutgoingMessage {
  topic: string;
  key: string;
  value: string;
  headers?: Record<string, string>;
  /**
   * The trace the send continues, when it is not the active one: the context stored with an outbox entry, so a
   * relay's publish (even a sweep's, after a crash) belongs to the request that wrote the event.
   */
  trace?: TraceCarrier | undefined;
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
export function createEventProducer(kafka: KafkaClient): EventProducer {
  // The partition each message of a send went to (`topic:partition`), for sendWhole.
  const partitionOf = new WeakMap<object, string>();
  const producer: Producer = kafkajsOf(kafka).producer({
    idempotent: false,
    // kafkajs 2's default partitioner (named: it warns about its change from 1.x on every producer made without
    // one), noting the partition it picks for each message.
    createPartitioner: notingPartitions(Partitioners.DefaultPartitioner, partitionOf),
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
    const outgoing = messages.map((m) => ({
      topic: m.topic,
      message: { key: m.key, value: m.value, headers: m.headers },
    }));
    const send = (batch: readonly TopicMessage[]) => {
      const byTopic = new Map<string, TopicMessage['message'][]>();
      for (const { topic, message } of batch) {
        const list = byTopic.get(topic);
        if (list) list.push(message);
        else byTopic.set(topic, [message]);
      }
      return producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })),
      });
    };
    await sendWhole(outgoing, send, (message) => partitionOf.get(message), UNWRITTEN_RESENDS);
    if (sentBatches.hasSubscribers) sentBatches.publish({ producer: eventProducer, messages: messages.length });
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
  const eventProducer: EventProducer = {
    connect,
    send(messages) {
      if (messages.length === 0) return Promise.resolve();
      if (!tracingEnabled()) return sends.add(messages);
      return sendTraced(messages, (traced) => sends.add(traced));
    },
    async disconnect() {
      connected = undefined;
      await producer.disconnect();
    },
  };
  if (createdProducers.hasSubscribers) createdProducers.publish(eventProducer);
  return eventProducer;
}

/**
 * One producer span per message (`<topic> publish`), child of the message's stored trace or of the active span,
 * its context in the message's `traceparent`/`tracestate` headers (W3C trace context in Kafka headers, as the
 * OpenTelemetry demo's services do); each span ends when the broker has acknowledged, or failed, the send. A
 * message the sampler drops carries its trace's context alone, with no span to end.
 */
async function sendTraced(
  messages: readonly OutgoingMessage[],
  send: (messages: readonly OutgoingMessage[]) => Promise<void>,
): Promise<void> {
  const spans: SpanHandle[] = [];
  const traced = messages.map((message) => {
    const span = startSpan(`${message.topic} publish`, {
      kind: 'producer',
      parent: message.trace ?? 'active',
      attributes: () => ({
        'messaging.system': 'kafka',
        'messaging.operation.type': 'send',
        'messaging.destination.name': message.topic,
        'messaging.message.id': message.headers?.['event-id'],
      }),
    });
    if (span.recording) spans.push(span);
    const headers = { ...message.headers };
    injectTraceHeaders(headers, span);
    return { topic: message.topic, key: message.key, value: message.value, headers };
  });
  if (spans.length === 0) return send(traced);
  try {
    await send(traced);
  } catch (err) {
    for (const span of spans) span.fail(err);
    throw err;
  } finally {
    for (const span of spans) span.end();
  }
}

/**
 * Whether kafkajs failed a send for what it held rather than for reaching the broker: its root cause is not retriable.
 */
function refusedForItsContent(err: unknown): boolean {
  let root = err;
  for (let depth = 0; depth < 5 && root instanceof Error && root.cause !== undefined; depth += 1) root = root.cause;
  return (root as { retriable?: unknown } | null)?.retriable === false;
}

interface Acknowledgement {
  topicName: string;
  partition: number;
}

interface TopicMessage {
  topic: string;
  message: { key: string; value: string; headers?: Record<string, string> | undefined };
}

/**
 * How often a send's messages for partitions kafkajs left unwritten (sendWhole) are sent again at once,
 * before the send fails and the outbox's sweep publishes them, 2-3 s later. Each time, kafkajs finds the leaders
 * anew, so one resend normally lands (the broker-restart bench: 2-5 sends in 3 of 16 runs left to the sweep).
 */
const UNWRITTEN_RESENDS = 2;

/**
 * kafkajs resolves a send whose messages for some partition it never sent. Its retry (producer/sendMessages.js)
 * keeps the answers of the brokers that answered the failed attempt and sends the next attempt only to the
 * others, recomputing each partition's leader first: a partition whose leadership moved, during a broker's
 * restart, to a broker that had already answered for its own partitions is in no request, and the send resolves
 * (tulios/kafkajs#1798 reports the same shared map). Seen in the rolling deploy as an order's internal event, or
 * its public event, missing while the other one, from the same send, was there. So every partition the partitioner
 * picked must be in the broker's acknowledgements: this sends `messages`, then sends again only those whose
 * partition (`partitionOf`, known once a send has partitioned them) has no acknowledgement, up to `resends` times;
 * then the send fails, retriable (UnacknowledgedPartitionsError), and its caller sends it again (the outbox's
 * sweep), which at-least-once delivery allows. The messages acknowledged are not sent twice.
 */
export async function sendWhole<M extends { message: object }>(
  messages: readonly M[],
  send: (batch: readonly M[]) => Promise<readonly Acknowledgement[]>,
  partitionOf: (message: M['message']) => string | undefined,
  resends: number,
): Promise<void> {
  let pending = messages;
  for (let attempt = 0; ; attempt += 1) {
    const answered = new Set((await send(pending)).map((a) => `${a.topicName}:${a.partition}`));
    const partitions = pending.map((m) => partitionOf(m.message) ?? 'unpartitioned');
    const unsent = new Set(partitions.filter((partition) => !answered.has(partition)));
    if (unsent.size === 0) return;
    if (attempt === resends) throw new UnacknowledgedPartitionsError([...unsent]);
    pending = pending.filter((_, i) => unsent.has(partitions[i] ?? ''));
  }
}

/** A send kafkajs resolved without an acknowledgement for every partition it was to write to (sendWhole). */
export class UnacknowledgedPartitionsError extends Error {
  /** As kafkajs' own errors say it: another attempt may succeed (GroupCommit fails every caller of the send). */
  readonly retriable = true;
  constructor(readonly partitions: readonly string[]) {
    super(`the send was resolved without an acknowledgement for ${partitions.join(', ')}`);
  }
}

/**
 * kafkajs' partitioner `make`, noting the partition it picks for each message as `topic:partition` (kafkajs hands
 * the partitioner the message objects it was given, producer/groupMessagesPerPartition.js).
 */
function notingPartitions(make: ICustomPartitioner, picked: WeakMap<object, string>): ICustomPartitioner {
  return () => {
    const pick = make();
    return (args) => {
      const partition = pick(args);
      picked.set(args.message, `${args.topic}:${partition}`);
      return partition;
    };
  };
}
