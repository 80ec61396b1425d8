const HOUR_MS = 3_600_000;

/** D47's chart window: the last 7 days, in whole hours (the current hour included). */
const PAYMENTS_CHART_HOURS = 7 * 24;

/** The first hour of the chart whose last hour is the one `now` falls in. */
export function paymentsChartStart(now: Date, hours = PAYMENTS_CHART_HOURS): Date {
  const currentHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  return new Date(currentHour - (hours - 1) * HOUR_MS);
}

/**
 * The chart's `hours` hours ending with the one `now` falls in, each with the payments the database counted in
 * it (none: 0). Pure, so the bucketing is unit-tested without a database. Amounts are integers (minor units),
 * summed exactly.
 */
export function paymentsPerHour(
  /** What the database summed per hour; `hour` counts whole hours from the chart's start. */
  totals: readonly { hour: number; count: number; amount: number }[],
  now: Date,
  hours = PAYMENTS_CHART_HOURS,
): { from: Date; hours: { hour: Date; count: number; amount: number }[] } {
  const from = paymentsChartStart(now, hours).getTime();
  const buckets = Array.from({ length: hours }, (_, i) => ({
    hour: new Date(from + i * HOUR_MS),
    count: 0,
    amount: 0,
  }));
  for (const total of totals) {
    const bucket = buckets[total.hour];
    if (!bucket) continue;
    bucket.count += total.count;
    bucket.amount += total.amount;
  }
  return { from: new Date(from), hours: buckets };
}
