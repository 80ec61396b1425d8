import type { HostAttemptTotals } from './ports';

/** D47's chart window: the last 24 hours of attempts. */
export const DELIVERY_STATS_WINDOW_MS = 24 * 3_600_000;

/**
 * The callback hosts the chart shows: those with the most attempts in the window. A merchant can make any number
 * of hosts (a subdomain per session); the answer, and what this process holds to make it, stays this size.
 */
export const DELIVERY_STATS_HOSTS = 20;

export interface HostStats {
  host: string;
  attempts: number;
  succeeded: number;
  p95DurationMs: number;
}

/** Nearest-rank p95 of a histogram (0 for none): the smallest duration that 95 % of attempts took no longer than. */
export function p95(durations: readonly { ms: number; n: number }[]): number {
  const total = durations.reduce((sum, d) => sum + d.n, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(0.95 * total));
  let seen = 0;
  for (const d of [...durations].sort((a, b) => a.ms - b.ms)) {
    seen += d.n;
    if (seen >= rank) return d.ms;
  }
  return 0;
}

/** Per callback host, the attempts of the window with their p95 duration; hosts sorted by name. Pure. */
export function deliveryStats(totals: readonly HostAttemptTotals[]): HostStats[] {
  return [...totals]
    .sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0))
    .map(({ host, attempts, succeeded, durations }) => ({ host, attempts, succeeded, p95DurationMs: p95(durations) }));
}
