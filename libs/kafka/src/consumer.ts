import type { Batch, Consumer, IHeaders, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { inSpan, startSpan, tracingEnabled, type SpanHandle, type TraceCarrier } from '@checkout/telemetry';
import type { KafkaClient } from './client';
import { batchCommits } from './batch-commits';
import { kafkajsGroupsOf } from './kafkajs';
import type { EventProducer } from './producer';
import {
  HANDLER_DEADLINE_MS,
  HandlerFailedError,
  heartbeating,
  superviseConsumer,
  withinDeadline,
  type RunningConsumer,
} from './kafkajs-accommodations';

export { HandlerFailedError, type RunningConsumer } from './kafkajs-accommodations';

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

export interface ConsumerOptions<T> {
  kafka: KafkaClient;
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  /** Turns the raw JSON into a typed message; a failure is poison and goes to the dead-letter topic. */
  parse: (raw: unknown) => ParseResult<T>;
  handle: (message: T, context: MessageContext) => Promise<void>;
  logger: Logger;
  deadLetter?: { topic: string; producer: EventProducer };
  partitionsConsumedConcurrently?: number;
  /** Called when a crashed consumer has been replaced (see superviseConsumer). */
  onRestart?: () => void;
  /** How long one handler call may take before it counts as failed and the message is tried again (default 60 s). */
  handlerDeadlineMs?: number;
}

/**
 * Group membership and retry settings every consumer of ours uses: a dead member is noticed within 15 s,
 * and a consumer keeps retrying a broker outage forever rather than giving up and stopping.
 */
export const CONSUMER_GROUP_SETTINGS = {
  sessionTimeout: 15_000,
  // A member learns that its group is rebalancing only from a heartbeat's answer; every 300 ms (with
  // GROUP_FETCH_MAX_WAIT_MS between fetches) keeps a rolling deploy's rebalances short.
  heartbeatInterval: 300,
  rebalanceTimeout: 20_000,
  retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: Number.MAX_SAFE_INTEGER },
} as const;

/**
 * How long one fetch of a group member may wait at the broker for new messages. kafkajs heartbeats, and so
 * learns that its group is rebalancing, only between fetches: with its default of 5 s, every member joining or
 * leaving (each step of a rolling deploy) left the group's partitions without an owner for 3-6.5 s while the
 * others finished their parked fetches (measured in the rollout soak). 500 ms bounds that wait; a
 * fetch still returns at once when messages are there, so it costs only idle fetches (two a second per member).
 */
const GROUP_FETCH_MAX_WAIT_MS = 500;

/**
 * What every consumer runner here starts with: a supervised member of `groupId` with our group settings (plus
 * the runner's own fetch settings), subscribed to `topics`; `run` starts it consuming, on every replacement too.
 */
function superviseGroupMember(
  options: Pick<ConsumerOptions<unknown>, 'kafka' | 'groupId' | 'topics' | 'fromBeginning' | 'onRestart'>,
  log: Logger,
  fetchSettings: { maxWaitTimeInMs?: number; maxBytesPerPartition?: number },
  run: (consumer: Consumer, replace: () => void) => Promise<void>,
): Promise<RunningConsumer> {
  return superviseConsumer({
    logger: log,
    ...(options.onRestart && { onRestart: options.onRestart }),
    create: () =>
      kafkajsGroupsOf(options.kafka).consumer({
        groupId: options.groupId,
        ...CONSUMER_GROUP_SETTINGS,
        maxWaitTimeInMs: GROUP_FETCH_MAX_WAIT_MS,
        ...fetchSettings,
      }),
    begin: async (consumer, replace) => {
      for (const topic of options.topics)
        await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
      await run(consumer, replace);
    },
  });
}

/**
 * At-least-once consumption: the offset moves on only after `handle` returns. A message
 * that can't be parsed is parked on the dead-letter topic and skipped; a handler that throws (database or
 * broker down) leaves the offset where it is, and kafkajs delivers the message again after a backoff.
 */
export async function runConsumer<T>(options: ConsumerOptions<T>): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  return superviseGroupMember(options, log, {}, (consumer) =>
    consumer.run({
      autoCommit: true,
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        const context: MessageContext = {
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          headers: decodeHeaders(message.headers),
        };
        const parsed = parseMessage(message, options.parse);
        if (!parsed.ok) {
          await parkOnDeadLetter(log, options.deadLetter, { topic, partition, message }, parsed.error);
          return;
        }
        try {
          await inSpan(`${topic} process`, consumerSpanOptions(options.groupId, context), () =>
            heartbeating(heartbeat, CONSUMER_GROUP_SETTINGS.heartbeatInterval, () =>
              withinDeadline(options.handle(parsed.value, context), options.handlerDeadlineMs ?? HANDLER_DEADLINE_MS),
            ),
          );
        } catch (err) {
          throw new HandlerFailedError(err);
        }
      },
    }),
  );
}

export interface BatchConsumerOptions<T> extends Omit<ConsumerOptions<T>, 'handle'> {
  /**
   * Takes the parsed messages of one fetched batch of one partition, in offset order, and resolves as soon as
   * the consumer may fetch on (the batch is in hand), with `done`: settled once the batch's work is durable.
   * Offsets are committed only after `done` resolves, in offset order per partition, so work still in progress
   * never holds back the partition's next batches. When `done` rejects (or the handler throws) the partition
   * goes back to the batch's first offset and everything from there is fetched again (at least once).
   */
  handleBatch: (messages: Array<{ value: T; context: MessageContext }>) => Promise<{ done: Promise<void> }>;
  /** Longest wait of one fetch for new messages (kafkajs' default is 5 s; a fetch returns as soon as data is there). */
  maxWaitTimeInMs?: number;
  /**
   * Largest batch fetched from one partition, in bytes (kafkajs' default is 1 MiB): bounds what one batch holds in
   * memory.
   */
  maxBytesPerPartition?: number;
}

/**
 * At-least-once consumption a batch at a time, for consumers whose work is cheaper in bulk and may become
 * durable after the handler returns (the webhook dispatcher stores a batch's deliveries, pending, with one
 * insertMany per collection; its first attempts run later). Offsets are committed as batchCommits says: per
 * partition, in order, once the work the batch started is durable.
 */
export async function runBatchConsumer<T>(options: BatchConsumerOptions<T>): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  const fetchSettings = {
    ...(options.maxWaitTimeInMs !== undefined && { maxWaitTimeInMs: options.maxWaitTimeInMs }),
    ...(options.maxBytesPerPartition !== undefined && { maxBytesPerPartition: options.maxBytesPerPartition }),
  };
  return superviseGroupMember(options, log, fetchSettings, async (consumer, replace) => {
    const commits = batchCommits(consumer, log, replace);
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        commits.rethrowCoordinatorMove();
        if (!isRunning() || isStale() || batch.messages.length === 0) return;
        const { topic, partition } = batch;
        const parsedMessages = await parseBatch(batch, options, log);
        const spans = startBatchSpans(options.groupId, parsedMessages);
        let handed: { done: Promise<void> };
        try {
          handed = await handOver(options.handleBatch, parsedMessages, heartbeat);
        } catch (err) {
          endBatchSpans(spans, err);
          throw err;
        }
        const { done } = handed;
        if (spans.length > 0)
          done.then(
            () => endBatchSpans(spans),
            (err: unknown) => endBatchSpans(spans, err),
          );
        const firstOffset = batch.firstOffset() ?? batch.messages[0]?.offset ?? '0';
        commits.track({ topic, partition, firstOffset, lastOffset: batch.lastOffset() }, done);
        resolveOffset(batch.lastOffset());
        await heartbeat();
      },
    });
  });
}

/** What a consumer span says: the topic, partition and offset, the group and the event id header. */
function consumerSpanOptions(groupId: string, context: MessageContext) {
  return {
    kind: 'consumer' as const,
    parent: context.headers,
    attributes: {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': context.topic,
      'messaging.destination.partition.id': String(context.partition),
      'messaging.kafka.offset': Number(context.offset),
      'messaging.consumer.group.name': groupId,
      'messaging.message.id': context.headers['event-id'],
    },
  };
}

/**
 * One consumer span per message of a batch, each continuing its own message's trace (docs/operations.md,
 * "Traces": a consumer continues the producer's trace rather than linking to it); its context goes with the
 * message (`context.trace`) so the work it leads to joins the trace. Each ends when the batch's work is durable.
 */
function startBatchSpans<T>(groupId: string, messages: Array<{ value: T; context: MessageContext }>): SpanHandle[] {
  if (!tracingEnabled()) return [];
  return messages.map((message) => {
    const span = startSpan(`${message.context.topic} process`, consumerSpanOptions(groupId, message.context));
    const trace = span.carrier();
    if (trace) message.context.trace = trace;
    return span;
  });
}

function endBatchSpans(spans: readonly SpanHandle[], err?: unknown): void {
  for (const span of spans) {
    if (err !== undefined) span.fail(err);
    span.end();
  }
}

/** The batch's messages that parse, in offset order; the others are parked on the dead-letter topic. */
async function parseBatch<T>(
  batch: Batch,
  options: Pick<BatchConsumerOptions<T>, 'parse' | 'deadLetter'>,
  log: Logger,
): Promise<Array<{ value: T; context: MessageContext }>> {
  const { topic, partition } = batch;
  const parsedMessages: Array<{ value: T; context: MessageContext }> = [];
  for (const message of batch.messages) {
    const parsed = parseMessage(message, options.parse);
    if (parsed.ok) {
      parsedMessages.push({
        value: parsed.value,
        context: {
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          headers: decodeHeaders(message.headers),
        },
      });
      continue;
    }
    await parkOnDeadLetter(log, options.deadLetter, { topic, partition, message }, parsed.error);
  }
  return parsedMessages;
}

/**
 * Gives a batch's messages to the handler and returns its `done`. A function of its own so that no closure
 * left waiting on `done` shares a scope with the messages: those would otherwise stay in memory until the
 * batch's work is over, not only until the handler has taken them.
 */
async function handOver<T>(
  handleBatch: BatchConsumerOptions<T>['handleBatch'],
  messages: Array<{ value: T; context: MessageContext }>,
  heartbeat: () => Promise<void>,
): Promise<{ done: Promise<void> }> {
  if (messages.length === 0) return { done: Promise.resolve() };
  try {
    return await heartbeating(heartbeat, CONSUMER_GROUP_SETTINGS.heartbeatInterval, () => handleBatch(messages));
  } catch (err) {
    throw new HandlerFailedError(err);
  }
}

function parseMessage<T>(message: KafkaMessage, parse: (raw: unknown) => ParseResult<T>): ParseResult<T> {
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

async function parkOnDeadLetter(
  log: Logger,
  deadLetter: ConsumerOptions<unknown>['deadLetter'],
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

export interface DelayedConsumerOptions<T> extends Omit<ConsumerOptions<T>, 'handle' | 'fromBeginning'> {
  /** When a message may be handled; one that is not due yet holds back its partition (only that one). */
  dueAt: (message: T) => Date;
  /** Handles a due message; the offset moves on when it resolves. */
  onDue: (message: T) => Promise<void>;
  clock: () => Date;
}

/**
 * Reads topics whose messages wait for a time (the webhook retry tiers). A message that is not due yet pauses
 * its partition and a timer resumes it when due; its offset is not resolved, so it is fetched again then.
 * Nothing sleeps inside the handler, so other partitions and topics keep flowing. Poison messages go to the
 * dead-letter topic; a failing onDue is retried in place (at least once).
 */
export async function runDelayedConsumer<T>(options: DelayedConsumerOptions<T>): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  const timers = new Set<NodeJS.Timeout>();
  const waiting = new Set<string>();
  const clearWaits = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    waiting.clear();
  };
  // A resumed partition is fetched on the next fetch round; a short long-poll keeps that within ~200 ms instead
  // of kafkajs' default 5 s (with every partition paused kafkajs idles for this long, too).
  const running = await superviseGroupMember(
    { ...options, fromBeginning: true },
    log,
    { maxWaitTimeInMs: 200 },
    async (consumer) => {
      // A replacement consumer starts with every partition resumed; the old one's timers are moot.
      clearWaits();
      await consumer.run({
        autoCommit: true,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
        eachBatch: async ({ batch, resolveOffset, heartbeat, pause, isRunning, isStale }) => {
          const partitionKey = `${batch.topic}:${batch.partition}`;
          if (waiting.has(partitionKey)) return;
          for (const message of batch.messages) {
            if (!isRunning() || isStale()) return;
            const parsed = parseMessage(message, options.parse);
            if (!parsed.ok) {
              await parkOnDeadLetter(
                log,
                options.deadLetter,
                { topic: batch.topic, partition: batch.partition, message },
                parsed.error,
              );
              resolveOffset(message.offset);
              continue;
            }
            const waitMs = options.dueAt(parsed.value).getTime() - options.clock().getTime();
            if (waitMs > 0) {
              const resume = pause();
              waiting.add(partitionKey);
              const timer = setTimeout(() => {
                timers.delete(timer);
                waiting.delete(partitionKey);
                resume();
              }, waitMs);
              timers.add(timer);
              return;
            }
            const context: MessageContext = {
              topic: batch.topic,
              partition: batch.partition,
              offset: message.offset,
              key: message.key?.toString() ?? null,
              headers: decodeHeaders(message.headers),
            };
            try {
              await inSpan(`${batch.topic} process`, consumerSpanOptions(options.groupId, context), () =>
                heartbeating(heartbeat, CONSUMER_GROUP_SETTINGS.heartbeatInterval, () => options.onDue(parsed.value)),
              );
            } catch (err) {
              throw new HandlerFailedError(err);
            }
            resolveOffset(message.offset);
            await heartbeat();
          }
        },
      });
    },
  );
  return {
    async stop() {
      clearWaits();
      await running.stop();
    },
  };
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
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString() ?? null,
    value: message.value?.toString() ?? '',
    headers: decodeHeaders(message.headers),
  };
}
