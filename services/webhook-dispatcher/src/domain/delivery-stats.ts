/** D47's chart window: the last 24 hours of attempts. */
export const DELIVERY_STATS_WINDOW_MS = 24 * 3_600_000;

export interface HostStats {
  host: string;
  attempts: number;
  succeeded: number;
  p95DurationMs: number;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Nearest-rank p95 of integers (0 for none): the value at least 95 % of attempts took no longer than. */
export function p95(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)] ?? 0;
}

/**
 * Per callback host, the attempts made since `from`: how many, how many succeeded (a 2xx: D31) and the p95 of
 * their durations. Pure, so the arithmetic is unit-tested without a database; hosts sorted by name.
 */
export function deliveryStats(
  deliveries: readonly {
    url: string;
    attempts: readonly { at: Date; statusCode: number | null; durationMs: number; error: string | null }[];
  }[],
  from: Date,
): HostStats[] {
  const byHost = new Map<string, { durations: number[]; succeeded: number }>();
  for (const delivery of deliveries) {
    const host = hostOf(delivery.url);
    for (const attempt of delivery.attempts) {
      if (attempt.at < from) continue;
      const entry = byHost.get(host) ?? { durations: [], succeeded: 0 };
      entry.durations.push(attempt.durationMs);
      if (
        attempt.error === null &&
        attempt.statusCode !== null &&
        attempt.statusCode >= 200 &&
        attempt.statusCode < 300
      )
        entry.succeeded += 1;
      byHost.set(host, entry);
    }
  }
  return [...byHost]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([host, { durations, succeeded }]) => ({
      host,
      attempts: durations.length,
      succeeded,
      p95DurationMs: p95(durations),
    }));
}
