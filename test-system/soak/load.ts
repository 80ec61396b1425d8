import { pause } from './client';
import type { Journey, JourneyKind, JourneyOptions, ReceiverKind } from './journey-types';
import { runJourney } from './journeys';

// The soak's load: merchants (organizations with a test and a live key) run customer journeys (journeys.ts) at a
// steady rate.

const WEIGHTS: Record<JourneyKind, number> = {
  'pay-full': 25,
  'pay-partial': 15,
  'decline-then-pay': 10,
  expire: 15,
  cancel: 10,
  order: 10,
  'live-processor': 15,
  // D48: partial and full refunds, a duplicate with one Idempotency-Key, concurrent refunds of one order, an
  // overpaid order's excess, a cancelled order (nothing to refund), a live refund settled by the processor.
  refund: 10,
  'refund-overpaid': 4,
  'refund-cancelled': 3,
  'refund-live': 7,
};
const RECEIVER_WEIGHTS: Record<ReceiverKind, number> = { healthy: 40, slow: 20, flapping: 25, failing: 15 };

/** Long enough to outlast a broker or database restart on a loaded machine. */
const STEP_DEADLINE_MS = 60_000;
/** Once no journey starts any more, the ones still running retry for at most this long: the run stays bounded. */
const WIND_DOWN_MS = 45_000;

export interface LoadOptions extends JourneyOptions {
  runId: string;
  random: () => number;
  ratePerSecond: number;
  durationMs: number;
  /**
   * Keeps the load going past durationMs while this says so (the chaos loop still running late, so every outage
   * happens under load), at most for `maxExtraMs`.
   */
  extendWhile?: () => boolean;
  maxExtraMs?: number;
  /** Journeys in flight at once; a tick that finds this many running is skipped and counted. */
  maxInFlight?: number;
  log: (line: string) => void;
}

export interface LoadResult {
  journeys: Journey[];
  skipped: number;
  /** Journeys that threw (a bug in the generator or an unparseable answer), with the reason. */
  crashed: string[];
}

function pick<K extends string>(weights: Record<K, number>, random: () => number): K {
  const entries = Object.entries(weights) as [K, number][];
  let roll = random() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [key, weight] of entries) {
    roll -= weight;
    if (roll < 0) return key;
  }
  return (entries[entries.length - 1] as [K, number])[0];
}

/** Starts journeys at a steady rate for durationMs, then waits for the ones still running. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const journeys: Journey[] = [];
  const crashed: string[] = [];
  const running = new Set<Promise<void>>();
  const maxInFlight = options.maxInFlight ?? 64;
  let skipped = 0;
  // When retries stop: never while journeys still start, then WIND_DOWN_MS after the last one started.
  let windDownAt = Number.POSITIVE_INFINITY;
  const stepDeadline = () => Math.max(0, Math.min(STEP_DEADLINE_MS, windDownAt - Date.now()));
  const start = Date.now();
  const planned = Math.floor((options.durationMs / 1000) * options.ratePerSecond);
  const cap = Math.floor(((options.durationMs + (options.maxExtraMs ?? 300_000)) / 1000) * options.ratePerSecond);
  let n = 0;
  for (; n < planned || (n < cap && options.extendWhile?.() === true); n++) {
    const wait = start + (n * 1000) / options.ratePerSecond - Date.now();
    if (wait > 0) await pause(wait);
    if (running.size >= maxInFlight) {
      skipped++;
      continue;
    }
    const kind = pick(WEIGHTS, options.random);
    const journey: Journey = {
      n,
      kind,
      merchant: Math.floor(options.random() * options.merchants.length),
      mode: kind === 'live-processor' || kind === 'refund-live' ? 'live' : 'test',
      externalId: `soak-${options.runId}-${n}`,
      ...(kind !== 'order' && kind !== 'refund-cancelled' && { receiver: pick(RECEIVER_WEIGHTS, options.random) }),
      paymentIntents: 0,
      processorPaymentIds: [],
      refunds: [],
      steps: [],
    };
    journeys.push(journey);
    const task = runJourney(journey, options, options.random(), stepDeadline).catch((err: unknown) => {
      crashed.push(`journey ${n} (${kind}): ${err instanceof Error ? err.message : String(err)}`);
    });
    running.add(task);
    void task.finally(() => running.delete(task));
  }
  windDownAt = Date.now() + WIND_DOWN_MS;
  options.log(
    `load: ${n - skipped} journeys started in ${((Date.now() - start) / 1000).toFixed(0)} s; waiting for ${running.size} still running`,
  );
  await Promise.all(running);
  return { journeys, skipped, crashed };
}
