// When a failed delivery is tried next (D31, D40). Pure: the clock and the random source are
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
  /** How long the endpoint asked us to wait (Retry-After on a 429 or 503, see parseRetryAfter), if it did. */
  retryAfterMs?: number | null;
}

export type NextAttempt = { at: Date; delayMs: number } | { exhausted: true };

/** D40: at most ±10 %, and never so much that a delay could reach its neighbour's range. */
const MAX_JITTER_RATIO = 0.1;

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
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  if (attempt >= maxAttempts || delaysMs.length === 0) return { exhausted: true };
  const index = Math.min(attempt - 1, delaysMs.length - 1);
  const base = delaysMs[index] ?? 0;
  const bound = jitterBoundMs(delaysMs, index);
  const jitter = Math.round((2 * rng() - 1) * bound);
  let delayMs = Math.max(0, base + jitter);
  // Retry-After only ever lengthens the wait, and never past the point where the next delay could be shorter
  // than this one (D40 keeps successive delays increasing): just under every draw of the next delay. The last delay
  // is not stretched past its jitter.
  if (input.retryAfterMs != null) {
    const next = delaysMs[index + 1];
    const ceiling = next === undefined ? base + bound : next - jitterBoundMs(delaysMs, index + 1) - 1;
    delayMs = Math.max(delayMs, Math.min(input.retryAfterMs, ceiling));
  }
  return { at: new Date(now.getTime() + delayMs), delayMs };
}

/**
 * Retry-After as RFC 9110 §10.2.3 defines it: delay-seconds or an HTTP-date, in ms from `now` (a date in the
 * past is 0). Anything else is ignored (null): a merchant's malformed header must not change the schedule.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : null;
  }
  // An IMF-fixdate names its weekday; Date.parse alone would take "5" or "tomorrow-ish" strings too.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
