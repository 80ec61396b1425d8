import type { Batch } from 'kafkajs';
import type { Logger } from 'pino';
import { startSpan, tracingEnabled, type SpanHandle } from '@checkout/telemetry';
import { batchCommits } from './batch-commits';
import { CONSUMER_GROUP_SETTINGS, superviseGroupMember, type ConsumerOptions } from './group-member';
import { HandlerFailedError, heartbeating, type RunningConsumer } from './kafkajs-accommodations';
import { consumerSpanOptions, messageContext, parkOnDeadLetter, parseMessage, type MessageContext } from './messages';

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
        if (options.onReceived) {
          const now = Date.now();
          for (const message of batch.messages) options.onReceived(topic, now - Number(message.timestamp));
        }
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

/**
 * One consumer span per message of a batch, each continuing its own message's trace (docs/operations.md,
 * "Traces": a consumer continues the producer's trace rather than linking to it); its context goes with the
 * message (`context.trace`) so the work it leads to joins the trace. Each ends when the batch's work is durable;
 * only the recorded ones are kept to end (a dropped message's context is its producer's, passed on).
 */
function startBatchSpans<T>(groupId: string, messages: Array<{ value: T; context: MessageContext }>): SpanHandle[] {
  if (!tracingEnabled()) return [];
  const spans: SpanHandle[] = [];
  for (const message of messages) {
    const span = startSpan(`${message.context.topic} process`, consumerSpanOptions(groupId, message.context));
    const trace = span.carrier();
    if (trace) message.context.trace = trace;
    if (span.recording) spans.push(span);
  }
  return spans;
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
        context: messageContext(topic, partition, message),
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
