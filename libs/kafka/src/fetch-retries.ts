// kafkajs 2.2.4 runs a member's fetch loop inside one call of its retrier (consumer/runner.js,
// scheduleFetchManager): the loop runs until a rebalance ends it, and each error that stops it in between is
// retried after the next pause of that same call, doubled from the last (CONSUMER_GROUP_SETTINGS: from 200 ms up to
// 5 s). A long-lived member's pauses so grow with every unrelated incident of its life, and while one lasts the
// member fetches no partition at all: in the rolling-deploy soak, a member's second refused commit in 7 s (two
// broker restarts) paused it 406 ms instead of 200, and a member that had met five such incidents since its last
// rebalance would stop for 5 s at the sixth. Java's client backs off per request, never the whole member. Here an
// error after the loop had run healthy for a while starts its pauses afresh; one that comes back at once (a broker
// that stays down) still gets the growing pauses.
import Runner from 'kafkajs/src/consumer/runner.js';
import kafkajsErrors from 'kafkajs/src/errors.js';

/** How long a fetch loop must have run before the error that stops it counts as a new incident. */
export const HEALTHY_FETCH_RUN_MS = 2_000;

interface FetchManager {
  start(): Promise<void>;
}
interface RunnerState {
  fetchManager: FetchManager;
}

/**
 * Errors the runner's retrier acts on itself (joins again, or gives up), which must reach it as they came.
 * The others it only retries after its next pause.
 */
function handledByRunner(err: unknown): boolean {
  const { name, type } = (err ?? {}) as { name?: unknown; type?: unknown };
  return (
    kafkajsErrors.isRebalancing(err) ||
    type === 'UNKNOWN_MEMBER_ID' ||
    name === 'KafkaJSNotImplemented' ||
    name === 'KafkaJSNoBrokerAvailableError'
  );
}

/**
 * `start` (a fetch loop), with an error after `healthyMs` of running turned into a pause of `firstPauseMs` and a
 * normal return: the runner's retrier call then ends, and the runner starts the loop again under a new one, whose
 * pauses begin at the first. An error sooner than that, or one the runner handles itself, is thrown as before.
 */
export function freshPausesAfterHealthyRun(
  start: () => Promise<void>,
  options: { healthyMs: number; firstPauseMs: number },
): () => Promise<void> {
  return async () => {
    const startedAt = Date.now();
    try {
      await start();
    } catch (err) {
      if (handledByRunner(err) || Date.now() - startedAt < options.healthyMs) throw err;
      await new Promise((resolve) => setTimeout(resolve, options.firstPauseMs));
    }
  };
}

let mended = false;

/**
 * Gives every runner's fetch loop fresh pauses after a healthy run (above), the first `firstPauseMs` (the group's
 * first retry pause). Idempotent; applied by superviseGroupMember.
 */
export function mendFetchRetries(firstPauseMs: number): void {
  if (mended) return;
  mended = true;
  const prototype = Runner.prototype;
  const schedule = prototype.scheduleFetchManager;
  const wrapped = new WeakSet<FetchManager>();
  prototype.scheduleFetchManager = function scheduleFetchManager(this: RunnerState) {
    const manager = this.fetchManager;
    if (!wrapped.has(manager)) {
      wrapped.add(manager);
      manager.start = freshPausesAfterHealthyRun(manager.start.bind(manager), {
        healthyMs: HEALTHY_FETCH_RUN_MS,
        firstPauseMs,
      });
    }
    schedule.call(this);
  };
}
