import { describe, expect, it } from 'vitest';
import {
  BENCH_PROCESS,
  cpuBudgetLines,
  cpuTable,
  perOperationMs,
  processCpuSeconds,
  sampleCpu,
  type CpuWindow,
} from './cpu';

const sample = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('CPU per operation', () => {
  const windows: CpuWindow[] = [
    {
      label: 'webhook',
      operations: 1_000,
      before: sample({ [BENCH_PROCESS]: 1, dispatcher: 10, 'mongo engine': 5 }),
      after: sample({ [BENCH_PROCESS]: 2, dispatcher: 11.5, 'mongo engine': 6 }),
    },
    // A process that exited meanwhile (esbuild) is missing from `after`; one started meanwhile counts from 0.
    {
      label: 'reference',
      operations: 500,
      before: sample({ [BENCH_PROCESS]: 2, esbuild: 3 }),
      after: sample({ [BENCH_PROCESS]: 2.5, kafka: 0.25 }),
    },
  ];

  it('divides each process CPU by the operations of its window, in milliseconds', () => {
    expect(Object.fromEntries(perOperationMs(windows[0] as CpuWindow))).toEqual({
      [BENCH_PROCESS]: 1,
      dispatcher: 1.5,
      'mongo engine': 1,
    });
    expect(Object.fromEntries(perOperationMs(windows[1] as CpuWindow))).toEqual({ [BENCH_PROCESS]: 1, kafka: 0.5 });
  });

  it('sums all processes, and all but the bench, and turns the latter into a ceiling for the cores given', () => {
    const table = cpuTable(windows, 2);
    expect(table.allMs.get('webhook')).toBeCloseTo(3.5);
    expect(table.servingMs.get('webhook')).toBeCloseTo(2.5);
    expect(table.ceiling.get('webhook')).toBeCloseTo(800);
    expect(table.servingMs.get('reference')).toBeCloseTo(0.5);
    expect(table.ceiling.get('reference')).toBeCloseTo(4_000);
    expect(table.text).toContain('ceiling on 2 cores');
    expect(table.text).toMatch(/webhook\s+1000\s+1\.00\s+1\.50\s+0\.00\s+1\.00\s+3\.50\s+2\.50\s+800\/s/);
  });

  it('judges a budget on the named processes only, and names the others beside them', () => {
    const [webhook] = cpuBudgetLines(windows, [{ window: 'webhook', processes: ['dispatcher'], maxMs: 1.5 }]);
    expect(webhook).toEqual({
      target: 'webhook, CPU of dispatcher ≤ 1.5 ms',
      figure: '1.50 ms (dispatcher 1.50; beside them mongo engine 1.00)',
      ok: true,
    });
    const [over, missing] = cpuBudgetLines(windows, [
      { window: 'webhook', processes: ['dispatcher', 'mongo engine'], maxMs: 2 },
      { window: 'payment', processes: ['orders'], maxMs: 8 },
    ]);
    expect(over?.ok).toBe(false);
    expect(over?.figure).toBe('2.50 ms (dispatcher 1.50 + mongo engine 1.00)');
    expect(missing).toMatchObject({ figure: 'not measured', ok: false });
  });

  it.runIf(process.platform === 'linux')('reads the CPU this process spends from /proc, under the bench name', () => {
    const before = sampleCpu();
    const ownBefore = processCpuSeconds(process.pid);
    const started = process.cpuUsage();
    let spin = 0;
    for (let used = process.cpuUsage(started); used.user + used.system < 300_000; used = process.cpuUsage(started))
      spin += 1;
    expect(spin).toBeGreaterThan(0);
    const spent = (sampleCpu().get(BENCH_PROCESS) ?? 0) - (before.get(BENCH_PROCESS) ?? 0);
    // /proc counts in 10 ms ticks; 300 ms of CPU is well above that.
    expect(spent).toBeGreaterThanOrEqual(0.2);
    expect(processCpuSeconds(process.pid) - ownBefore).toBeGreaterThanOrEqual(0.2);
  });
});
