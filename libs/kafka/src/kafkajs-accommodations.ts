// What kafkajs gets wrong, answered in one place. Each accommodation below names the upstream
// issue it answers; README.md ("kafkajs accommodations") indexes them with the ones that live elsewhere in this
// lib (the group request timeout in client.ts, the non-idempotent producer in producer.ts, topic creation in
// topics.ts). Replacing kafkajs is the moment to re-check each: a client that does the right thing makes it go.
import type { Consumer } from 'kafkajs';
import type { Logger } from 'pino';

/** A consumer kept running until stop() (superviseConsumer); what every consumer runner of this lib returns. */
export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * Internal to libs/kafka (services use runConsumer, runBatchConsumer or runDelayedConsumer). Keeps a consumer group
 * member alive for the life of the service. kafkajs restarts a crashed consumer only when the crash is
 * retriable; after any other crash it leaves the consumer disconnected for good while the service goes on
 * answering ready (tulios/kafkajs#1445, open). We have seen it after "Failed to find group coordinator" on a busy
 * single-broker cluster (kafkajs wraps that in a non-retriable error: tulios/kafkajs#1630); a TypeError or
 * RangeError out of a handler does the same. The supervisor starts a fresh consumer after such a crash,
 * backing off from 500 ms to 5 s (the cap of its group retries), until stop(). Messages whose offsets were
 * not committed are fetched again.
 *
 * `begin` subscribes and runs the consumer it is given; it is called again for every replacement. Its `replace`
 * asks for a replacement of that consumer now (a member whose commits go to a coordinator that moved, see
 * batch-commits.ts): it leaves the group, and a fresh one joins and finds the group's coordinator again.
 */
export async function superviseConsumer(options: {
  create: () => Consumer;
  begin: (consumer: Consumer, replace: () => void) => Promise<void>;
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
      await options.begin(consumer, () => {
        if (stopped || consumer !== current || timer) return;
        current = undefined;
        void consumer
          .disconnect()
          .catch((err: unknown) => log.warn({ err }, 'could not disconnect the consumer being replaced'));
        schedule();
      });
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
          log.warn(
            { err, retryInMs: Math.min(5_000, 500 * 2 ** failures) },
            'replacement consumer failed to start; will retry',
          );
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
 * message is tried again after a backoff, whatever the handler threw. (kafkajs restarts a crashed consumer only
 * on a retriable error: tulios/kafkajs#1271, PR #1274.)
 */
export class HandlerFailedError extends Error {
  readonly retriable = true;
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'HandlerFailedError';
  }
}

/**
 * A handler call that never settles stops its partition for good: kafkajs awaits it, nothing times it out, and
 * the group member keeps its partitions while the service answers ready. The MongoDB driver has such a wait
 * (a write on a socket Node has destroyed waits for a 'drain' that never comes, with no timeout unless the
 * caller passes one: monitor-watchdog.ts in @checkout/mongo), and writes take no AbortSignal in driver 7. Past
 * the deadline the call counts as failed and the message is tried again; the abandoned call may still finish,
 * which at-least-once handlers must tolerate anyway. kafkajs' maintainers confirm eachMessage has no timeout
 * and leave one to the application (tulios/kafkajs#447).
 */
export const HANDLER_DEADLINE_MS = 60_000;

export async function withinDeadline(
  work: Promise<void>,
  deadlineMs: number,
  failure: () => Error = () =>
    new Error(`the handler did not settle within ${deadlineMs} ms; trying the message again`),
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failure()), deadlineMs);
  });
  try {
    await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a handler call while heartbeating for the member. kafkajs heartbeats only between handler calls (or when
 * asked), so a call that outlasts the group session (a handler waiting for room: back-pressure; a slow
 * database) would get the member dropped and its partitions handed over mid-call. A rebalance a heartbeat
 * reports meanwhile is left to the next heartbeat after the call, which kafkajs acts on. Upstream: heartbeating
 * while a message is processed is an open request (tulios/kafkajs#1396; #447, #1083).
 */
export async function heartbeating<R>(
  heartbeat: () => Promise<void>,
  intervalMs: number,
  work: () => Promise<R>,
): Promise<R> {
  const timer = setInterval(() => void heartbeat().catch(() => {}), intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * How long a consumer group member's requests may wait. A follower's SyncGroup waits at the coordinator until
 * the group's leader sends the assignment; when the leader is a member that died (a SIGKILLed replica, or a
 * kafkajs consumer that gave up and rejoined under a new member id), that lasts until its session expires
 * (CONSUMER_GROUP_SETTINGS.sessionTimeout, 15 s). With 10 s, kafkajs gave up on the SyncGroup first, crashed,
 * rejoined as yet another member, and the group could stay unassigned for minutes (seen in the soak: a
 * "SyncGroup timed out" every 25 s while order events waited). 30 s outlasts it. Upstream: a SyncGroup timeout
 * during a rebalance surfacing as a crash, tulios/kafkajs#1410. createKafka gives group members a client with it.
 */
export const GROUP_REQUEST_TIMEOUT_MS = 30_000;

/** The protocol error a kafkajs error carries (`NOT_COORDINATOR_FOR_GROUP`, …), if any. */
export function protocolErrorType(err: unknown): string | undefined {
  const type = err instanceof Error ? (err as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : undefined;
}

/**
 * `attempt`, tried again with growing pauses (from 100 ms, doubling up to `maxPauseMs`) while what it throws is
 * worth another try (`retryOn`; by default what kafkajs marks retriable) and the next pause ends before `deadline`;
 * then its last error. kafkajs' admin.fetchOffsets makes one attempt: a group coordinator still loading its
 * partition of the offsets topic (a broker just started or restarted) answers COORDINATOR_LOAD_IN_PROGRESS, which
 * kafkajs marks retriable but does not retry there (drainTopic); a member following a moved coordinator asks again
 * while the move is under way (coordinator-moves.ts).
 */
export async function whileRetriable<T>(
  attempt: () => Promise<T>,
  deadline: number,
  options: { retryOn?: (err: unknown) => boolean; maxPauseMs?: number } = {},
): Promise<T> {
  const retryOn = options.retryOn ?? ((err) => (err as { retriable?: unknown } | null)?.retriable === true);
  const maxPauseMs = options.maxPauseMs ?? 2_000;
  for (let pauseMs = 100; ; pauseMs = Math.min(pauseMs * 2, maxPauseMs)) {
    try {
      return await attempt();
    } catch (err) {
      if (!retryOn(err) || Date.now() + pauseMs > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
