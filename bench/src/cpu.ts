// CPU per operation, by process: where a scenario's CPU goes, and the throughput the machine's cores allow at
// that cost. Every process the bench started is its descendant (services, engines, the dispatcher), so one walk
// of /proc from this process finds them all; engines given by KAFKA_BROKERS / MONGODB_URL are not counted.
// Linux only: elsewhere the table says so and the benches carry on.
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { formatColumns } from './load';

/** CPU seconds (user + system, all threads) used so far, by process name. */
export type CpuSample = ReadonlyMap<string, number>;

interface ProcEntry {
  pid: number;
  ppid: number;
  seconds: number;
}

function readStat(pid: number): ProcEntry | undefined {
  try {
    // The command name (field 2) may hold spaces and parentheses: the fields that follow start after its last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // From field 3 (state): ppid is field 4, utime 14 and stime 15, in clock ticks (USER_HZ, 100 on Linux).
    return { pid, ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / 100 };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** CPU seconds (user + system, all threads) one process has used so far; NaN where there is no /proc. */
export function processCpuSeconds(pid: number | undefined): number {
  return pid === undefined ? Number.NaN : (readStat(pid)?.seconds ?? Number.NaN);
}

/** A readable name for a process from its command line. */
function nameOf(pid: number): string {
  if (pid === process.pid) return BENCH_PROCESS;
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return 'other';
  }
  const line = args.join(' ');
  if (/\bjava\b/.test(args[0] ?? ''))
    return /kafka/i.test(line) ? 'kafka' : /mongo/i.test(line) ? 'mongo engine' : 'java';
  if (/\bnode\b/.test(args[0] ?? '')) {
    const script = args.slice(1).find((arg) => /\.(m?js|ts)$/.test(arg));
    const base = script
      ?.split('/')
      .pop()
      ?.replace(/\.(m?js|ts)$/, '')
      .replace(/-process$/, '');
    return base ?? 'node';
  }
  return 'other';
}

/** This process and every descendant of it, by name (processes of one name summed). Empty without /proc. */
export function sampleCpu(): CpuSample {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return new Map();
  }
  const entries = pids.map(readStat).filter((entry): entry is ProcEntry => entry !== undefined);
  const children = new Map<number, ProcEntry[]>();
  for (const entry of entries) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const self = entries.find((entry) => entry.pid === process.pid);
  const byName = new Map<string, number>();
  const stack = self ? [self] : [];
  while (stack.length > 0) {
    const entry = stack.pop() as ProcEntry;
    const name = nameOf(entry.pid);
    if (entry.seconds > 0) byName.set(name, (byName.get(name) ?? 0) + entry.seconds);
    stack.push(...(children.get(entry.pid) ?? []));
  }
  return byName;
}

/** One scenario's CPU: `operations` done between two samples. */
export interface CpuWindow {
  label: string;
  operations: number;
  before: CpuSample;
  after: CpuSample;
}

/** Measures the CPU `during` uses, per operation; `operations` is read once it is over. */
export async function cpuDuring<T>(
  label: string,
  during: () => Promise<T>,
  operations: (result: T) => number,
): Promise<{ result: T; window: CpuWindow }> {
  const before = sampleCpu();
  const result = await during();
  return { result, window: { label, operations: operations(result), before, after: sampleCpu() } };
}

/** CPU milliseconds per operation, by process name (a process that exited meanwhile counts 0). */
export function perOperationMs(window: CpuWindow): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, seconds] of window.after) {
    out.set(name, (Math.max(0, seconds - (window.before.get(name) ?? 0)) * 1000) / Math.max(1, window.operations));
  }
  return out;
}

/** The bench's own process: the load generator (and the webhook receivers), not part of what is measured. */
export const BENCH_PROCESS = 'bench (load, receivers)';

export interface CpuTable {
  text: string;
  /** CPU milliseconds per operation of every process, by window label. */
  allMs: Map<string, number>;
  /** CPU milliseconds per operation of every process but the bench's own, by window label. */
  servingMs: Map<string, number>;
  /**
   * Operations per second the machine's cores would allow at that cost, by window label: cores × 1000 / servingMs,
   * were every core busy serving and the load generator free.
   */
  ceiling: Map<string, number>;
}

/** A table of CPU milliseconds per operation: a row per window, a column per process, the sums and the ceiling. */
export function cpuTable(windows: readonly CpuWindow[], cores = availableParallelism()): CpuTable {
  const perOp = windows.map(perOperationMs);
  const names = [...new Set(perOp.flatMap((m) => [...m.keys()]))]
    .filter((name) => perOp.some((m) => (m.get(name) ?? 0) >= 0.005))
    .sort();
  const allMs = new Map<string, number>();
  const servingMs = new Map<string, number>();
  const ceiling = new Map<string, number>();
  const lines = windows.map((window, i) => {
    const row = perOp[i] as Map<string, number>;
    const all = [...row.values()].reduce((sum, ms) => sum + ms, 0);
    const serving = all - (row.get(BENCH_PROCESS) ?? 0);
    allMs.set(window.label, all);
    servingMs.set(window.label, serving);
    ceiling.set(window.label, (cores * 1000) / serving);
    return [
      window.label,
      String(window.operations),
      ...names.map((name) => (row.get(name) ?? 0).toFixed(2)),
      all.toFixed(2),
      serving.toFixed(2),
      `${((cores * 1000) / serving).toFixed(0)}/s`,
    ];
  });
  if (names.length === 0)
    return { text: 'CPU per operation: not measured (no /proc on this machine)', allMs, servingMs, ceiling };
  const text = formatColumns(
    ['CPU ms per operation', 'ops', ...names, 'all', 'all but the bench', `ceiling on ${cores} cores`],
    lines,
  );
  return { text, allMs, servingMs, ceiling };
}

/** A ceiling on the CPU the named processes may spend per operation of one window (docs/engineering.md). */
export interface CpuBudget {
  window: string;
  processes: readonly string[];
  maxMs: number;
}

/**
 * Each budget against its window: the named processes' CPU per operation summed, and the figure that says where it
 * went, every other process but the bench's own beside it (Kafka, the engine), so that a feature that adds a
 * millisecond shows where.
 */
export function cpuBudgetLines(
  windows: readonly CpuWindow[],
  budgets: readonly CpuBudget[],
): Array<{ target: string; figure: string; ok: boolean }> {
  return budgets.map((budget) => {
    const window = windows.find((w) => w.label === budget.window);
    const row = window ? perOperationMs(window) : new Map<string, number>();
    const spent = budget.processes.reduce((sum, name) => sum + (row.get(name) ?? 0), 0);
    const parts = budget.processes.map((name) => `${name} ${(row.get(name) ?? 0).toFixed(2)}`).join(' + ');
    const others = [...row.entries()]
      .filter(([name, ms]) => name !== BENCH_PROCESS && !budget.processes.includes(name) && ms >= 0.005)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, ms]) => `${name} ${ms.toFixed(2)}`);
    return {
      target: `${budget.window}, CPU of ${budget.processes.join(' + ')} ≤ ${budget.maxMs} ms`,
      figure: window
        ? `${spent.toFixed(2)} ms (${parts}${others.length > 0 ? `; beside them ${others.join(', ')}` : ''})`
        : 'not measured',
      ok: window !== undefined && row.size > 0 && spent <= budget.maxMs,
    };
  });
}
