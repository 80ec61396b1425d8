export interface LoadResult {
  label: string;
  requests: number;
  errors: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
  /** Every request sent, warm-up included (for CPU per request). */
  sent?: number;
  /** Sorted latencies, kept so slices of one scenario can be merged (mergeLoads). */
  latencies?: number[];
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The p50 of values in any order (NaN for none). */
export const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/**
 * Closed-loop load: `concurrency` workers each send a request, wait for its answer and send the next, for
 * `durationMs`, after a short warm-up whose requests are not counted. Latency in milliseconds.
 */
export async function runLoad(
  label: string,
  options: { concurrency: number; durationMs: number; warmupMs?: number },
  send: (i: number) => Promise<boolean>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const warmupUntil = Date.now() + (options.warmupMs ?? 1_000);
  const stopAt = warmupUntil + options.durationMs;
  let measuredFrom = 0;
  const worker = async () => {
    while (Date.now() < stopAt) {
      const started = performance.now();
      const ok = await send(counter++).catch(() => false);
      const elapsed = performance.now() - started;
      if (Date.now() < warmupUntil) continue;
      measuredFrom ||= Date.now();
      if (ok) latencies.push(elapsed);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (Date.now() - (measuredFrom || warmupUntil)) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    requests: latencies.length,
    errors,
    seconds,
    throughput: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    sent: counter,
    latencies,
  };
}

/** One scenario measured in several slices (interleaved with others, so a loaded machine hurts all alike). */
export function mergeLoads(label: string, slices: readonly LoadResult[]): LoadResult {
  const latencies = slices.flatMap((s) => s.latencies ?? []).sort((a, b) => a - b);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  return {
    label,
    requests: latencies.length,
    errors: slices.reduce((sum, s) => sum + s.errors, 0),
    seconds,
    throughput: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    sent: slices.reduce((sum, s) => sum + (s.sent ?? 0), 0),
    latencies,
  };
}

export function formatTable(
  rows: readonly LoadResult[],
  baseline?: (row: LoadResult) => LoadResult | undefined,
): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs baseline (throughput, p50)'];
  const lines = rows.map((r) => {
    const base = baseline?.(r);
    const ratio =
      base && base !== r
        ? `${(r.throughput / base.throughput).toFixed(2)}× , ${(r.p50 / base.p50).toFixed(1)}× (vs ${base.label})`
        : '';
    return [r.label, r.throughput.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2), String(r.errors), ratio];
  });
  return formatColumns(header, lines);
}

/** Left-aligned columns with a rule under the header. */
export function formatColumns(header: readonly string[], lines: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

/**
 * Starts `work(n)` for each n below `count` at `rate` a second (open loop: a slow answer never holds back the next
 * start), or until `stopped()` says so, then waits for all; `work` handles its own failures.
 */
export async function openLoop(
  rate: number,
  count: number,
  work: (n: number) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  const started = performance.now();
  const running: Promise<void>[] = [];
  for (let n = 0; n < count && !stopped(); n++) {
    const wait = started + (n * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(work(n));
  }
  await Promise.all(running);
}

/** Starts `work(i)` at `rate` a second for `ms`, without waiting for one to end before the next; waits for all. */
export function paced(rate: number, ms: number, work: (i: number) => Promise<void>): Promise<void> {
  return openLoop(rate, Math.round((rate * ms) / 1000), (i) =>
    work(i).catch((err: unknown) => {
      process.stderr.write(`[bench] ${String(err)}\n`);
    }),
  );
}
