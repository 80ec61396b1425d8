import type { KafkaMessage, IHeaders } from 'kafkajs';
import type { Logger } from 'pino';
import type { TraceCarrier } from '@checkout/telemetry';
import type { EventProducer } from './producer';

// A fetched message as every consumer runner here sees it: parsed (or parked as poison), its context decoded, and
// the consumer span that continues its producer's trace.

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /** Header values decoded as UTF-8. */
  headers: Record<string, string>;
  /**
   * The trace context of this message's consumer span, while tracing is on (batch consumers: to store with
   * the work the message leads to, which ends after the handler returns).
   */
  trace?: TraceCarrier;
}

/** Where messages that cannot be parsed are parked. */
export interface DeadLetter {
  topic: string;
  producer: EventProducer;
}

/** The context of a fetched message: where it was read, its key, and its headers decoded as UTF-8. */
export function messageContext(topic: string, partition: number, message: KafkaMessage): MessageContext {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString() ?? null,
    headers: decodeHeaders(message.headers),
  };
}

/**
 * What a consumer span continues (the message's traceparent) and says: the topic, partition and offset, the group
 * and the event id header; the attributes are built only for a span that is recorded.
 */
export function consumerSpanOptions(groupId: string, context: MessageContext) {
  return {
    kind: 'consumer' as const,
    parent: context.headers,
    attributes: () => ({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': context.topic,
      'messaging.destination.partition.id': String(context.partition),
      'messaging.kafka.offset': Number(context.offset),
      'messaging.consumer.group.name': groupId,
      'messaging.message.id': context.headers['event-id'],
    }),
  };
}

export function parseMessage<T>(message: KafkaMessage, parse: (raw: unknown) => ParseResult<T>): ParseResult<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(message.value?.toString() ?? '');
  } catch {
    return { ok: false, error: 'value is not JSON' };
  }
  try {
    return parse(raw);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    decoded[name] = Array.isArray(value) ? String(value[0]) : value.toString();
  }
  return decoded;
}

/** Logs a message that cannot be parsed and parks it, as it came, on the dead-letter topic (when there is one). */
export async function parkOnDeadLetter(
  log: Logger,
  deadLetter: DeadLetter | undefined,
  from: { topic: string; partition: number; message: KafkaMessage },
  reason: string,
): Promise<void> {
  const { topic, partition, message } = from;
  log.error({ topic, partition, offset: message.offset, reason }, 'poison message parked on the dead-letter topic');
  if (!deadLetter) return;
  await deadLetter.producer.send([
    {
      topic: deadLetter.topic,
      key: message.key?.toString() ?? `${topic}:${partition}:${message.offset}`,
      value: message.value?.toString() ?? '',
      headers: { 'x-original-topic': topic, 'x-failure-reason': reason.slice(0, 500) },
    },
  ]);
}

/** A message as this lib hands it out (readTopic, drainTopic): key, value and headers decoded as text. */
export interface ReceivedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string;
  headers: Record<string, string>;
}

/** A fetched message as a ReceivedMessage. */
export function receivedMessage(topic: string, partition: number, message: KafkaMessage): ReceivedMessage {
  const { offset, key, headers } = messageContext(topic, partition, message);
  return { topic, partition, offset, key, value: message.value?.toString() ?? '', headers };
}
