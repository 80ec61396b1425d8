// When a failed delivery is tried next (D31, D40; style.md §9). Pure: the clock and the random source are
// arguments, so the table tests below it need no engines. Kafka's retry tiers only carry this decision.

export interface NextAttemptInput {
  /** The attempt that just failed, 1 for the first. */
  attempt: number;
  now: Date;
  /** Delay before attempt 2, 3, …; strictly increasing (config enforces it). */
  delaysMs: readonly number[];
  maxAttempts: number;
  /** Uniform in [0, 1); Math.random in production. */
  rng: () => number;
}

export type NextAttempt = { at: Date; delayMs: number } | { exhausted: true };

/** D40: at most ±10 %, and never so much that a delay could reach its neighbour's range. */
export const MAX_JITTER_RATIO = 0.1;

export function jitterBoundMs(delaysMs: readonly number[], index: number): number {
  const delay = delaysMs[index] ?? 0;
  let bound = Math.floor(delay * MAX_JITTER_RATIO);
  const previous = delaysMs[index - 1];
  const next = delaysMs[index + 1];
  // Two neighbours' ranges together stay under their gap, so every draw of delay n+1 exceeds every draw of n.
  if (previous !== undefined) bound = Math.min(bound, Math.floor((delay - previous - 1) / 2));
  if (next !== undefined) bound = Math.min(bound, Math.floor((next - delay - 1) / 2));
  return Math.max(0, bound);
}

export function nextAttempt(input: NextAttemptInput): NextAttempt {
  const { attempt, now, delaysMs, maxAttempts, rng } = input;
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  if (attempt >= maxAttempts || delaysMs.length === 0) return { exhausted: true };
  const index = Math.min(attempt - 1, delaysMs.length - 1);
  const base = delaysMs[index] ?? 0;
  const bound = jitterBoundMs(delaysMs, index);
  const jitter = Math.round((2 * rng() - 1) * bound);
  const delayMs = Math.max(0, base + jitter);
  return { at: new Date(now.getTime() + delayMs), delayMs };
}
