const HOUR_MS = 3_600_000;

/** D47's chart window: the last 7 days, in whole hours (the current hour included). */
export const PAYMENTS_CHART_HOURS = 7 * 24;

/**
 * Counts payments per hour over the `hours` hours ending with the one `now` falls in; pure, so the bucketing
 * is unit-tested without a database. Amounts are integers (minor units), summed exactly.
 */
export function paymentsPerHour(
  payments: readonly { amount: number; appliedAt: Date }[],
  now: Date,
  hours = PAYMENTS_CHART_HOURS,
): { from: Date; hours: { hour: Date; count: number; amount: number }[] } {
  const currentHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const from = currentHour - (hours - 1) * HOUR_MS;
  const buckets = Array.from({ length: hours }, (_, i) => ({
    hour: new Date(from + i * HOUR_MS),
    count: 0,
    amount: 0,
  }));
  for (const payment of payments) {
    const index = Math.floor((payment.appliedAt.getTime() - from) / HOUR_MS);
    const bucket = buckets[index];
    if (!bucket) continue;
    bucket.count += 1;
    bucket.amount += payment.amount;
  }
  return { from: new Date(from), hours: buckets };
}
