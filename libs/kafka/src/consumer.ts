import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import type { EventProducer } from './producer';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: KafkaMessage['headers'];
}

export interface ConsumerOptions<T> {
  kafka: Kafka;
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
}

/**
 * Group membership and retry settings every consumer of ours uses: a dead member is noticed within 15 s,
 * and a consumer keeps retrying a broker outage forever rather than giving up and stopping.
 */
export const CONSUMER_GROUP_SETTINGS = {
  sessionTimeout: 15_000,
  heartbeatInterval: 1_000,
  rebalanceTimeout: 20_000,
  retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: Number.MAX_SAFE_INTEGER },
} as const;

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * Keeps a consumer group member alive for the life of the service. kafkajs restarts a crashed consumer only
 * when the crash is retriable; after any other crash it leaves the consumer disconnected for good while the
 * service goes on answering ready. We have seen it after "Failed to find group coordinator" on a busy
 * single-broker cluster (kafkajs wraps that in a non-retriable error: tulios/kafkajs#1630); a TypeError or
 * RangeError out of a handler does the same. The supervisor starts a fresh consumer after such a crash,
 * backing off from 500 ms to 5 s (the cap of its group retries), until stop(). Messages whose offsets were
 * not committed are fetched again.
 *
 * `begin` subscribes and runs the consumer it is given; it is called again for every replacement.
 */
export async function superviseConsumer(options: {
  create: () => Consumer;
  begin: (consumer: Consumer) => Promise<void>;
  logger: Logger;
  /** Called after a replacement consumer is running (tests, metrics). */
  onRestart?: () => void;
}): Promise<RunningConsumer> {
  const { logger: log } = options;
  let stopped = false;
  let current: Consumer | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;

  const launch = async (): Promise<void> => {
    const consumer = options.create();
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || stopped || consumer !== current) return;
      log.error({ err: payload.error }, 'consumer crashed and kafkajs will not restart it; starting a new one');
      schedule();
    });
    current = consumer;
    try {
      await consumer.connect();
      await options.begin(consumer);
      // stop() came while this replacement was starting: it must not outlive the service.
      if (stopped) await consumer.disconnect();
    } catch (err) {
      await consumer.disconnect().catch(() => {});
      throw err;
    }
  };

  const schedule = () => {
    const delayMs = Math.min(5_000, 500 * 2 ** failures);
    timer = setTimeout(() => {
      timer = undefined;
      if (stopped) return;
      launch().then(
        () => {
          failures = 0;
          log.warn('replacement consumer running');
          options.onRestart?.();
        },
        (err: unknown) => {
          failures++;
          log.warn({ err, retryInMs: Math.min(5_000, 500 * 2 ** failures) }, 'replacement consumer failed to start; will retry');
          if (!stopped) schedule();
        },
      );
    }, delayMs);
  };

  await launch();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current?.disconnect();
    },
  };
}

/**
 * A handler's failure as kafkajs must see it: retriable. kafkajs retries any error by default, except that
 * it crashes the consumer on a TypeError, RangeError, ReferenceError or SyntaxError (its "unrecoverable"
 * list), which a network library or a bug in one branch can throw for one message. At least once means the
 * message is tried again after a backoff, whatever the handler threw.
 */
export class HandlerFailedError extends Error {
  readonly retriable = true;
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'HandlerFailedError';
  }
}

/**
 * At-least-once consumption (style.md §10): the offset moves on only after `handle` returns. A message
 * that can't be parsed is parked on the dead-letter topic and skipped; a handler that throws (database or
 * broker down) leaves the offset where it is, and kafkajs delivers the message again after a backoff.
 */
export async function runConsumer<T>(options: ConsumerOptions<T>): Promise<RunningConsumer> {
  const log = options.logger.child({ groupId: options.groupId });
  return superviseConsumer({
    logger: log,
    ...(options.onRestart && { onRestart: options.onRestart }),
    create: () => options.kafka.consumer({ groupId: options.groupId, ...CONSUMER_GROUP_SETTINGS }),
    begin: async (consumer) => {
      for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
      await consumer.run({
        autoCommit: true,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
        eachMessage: async ({ topic, partition, message }) => {
          const context: MessageContext = { topic, partition, offset: message.offset, key: message.key?.toString() ?? null, headers: message.headers };
          const parsed = parseMessage(message, options.parse);
          if (!parsed.ok) {
            log.error({ topic, partition, offset: message.offset, reason: parsed.error }, 'poison message parked on the dead-letter topic');
            if (options.deadLetter) {
              await options.deadLetter.producer.send([
                {
                  topic: options.deadLetter.topic,
                  key: context.key ?? `${topic}:${partition}:${message.offset}`,
                  value: message.value?.toString() ?? '',
                  headers: { 'x-original-topic': topic, 'x-failure-reason': parsed.error.slice(0, 500) },
                },
              ]);
            }
            return;
          }
          try {
            await options.handle(parsed.value, context);
          } catch (err) {
            throw new HandlerFailedError(err);
          }
        },
      });
    },
  });
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
