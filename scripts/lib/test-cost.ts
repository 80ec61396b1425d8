import { readFileSync, writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

// What a test run cost, so that the next slow test is seen the day it lands: each file's wall time and outcome,
// written by this vitest reporter to TEST_COST_FILE, then summed by scripts/test.ts over every vitest process of a
// run (the tiers may run side by side) into each tier's wall time, the ten slowest files and one closing line.

export interface FileCost {
  file: string;
  tier: string;
  startedAt: number;
  endedAt: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Each failed test's name and its first error's first line, so that the run's last lines say what failed. */
  failures?: string[];
  /** The vitest process that ran the file (its cost file), set when read back. */
  run?: string;
}

/** The vitest reporter: one FileCost per test file, written when the run ends. */
export default class TestCostReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly costs: FileCost[] = [];

  onTestModuleStart(module: TestModule): void {
    this.started.set(module.id, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const failures: string[] = [];
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state === 'passed') counts.passed += 1;
      else if (result.state === 'failed') {
        counts.failed += 1;
        failures.push(`${test.fullName}: ${firstLine(result.errors[0]?.message)}`);
      } else counts.skipped += 1;
    }
    // A file that fails before its tests run (an import error, a failing hook) counts as one failure.
    if (counts.failed === 0 && module.state() === 'failed') {
      counts.failed = 1;
      failures.push(`the file itself: ${firstLine(module.errors()[0]?.message)}`);
    }
    this.costs.push({
      file: module.relativeModuleId,
      tier: module.project.name,
      startedAt: this.started.get(module.id) ?? Date.now(),
      endedAt: Date.now(),
      ...counts,
      failures,
    });
  }

  onTestRunEnd(): void {
    const target = process.env.TEST_COST_FILE;
    if (target) writeFileSync(target, JSON.stringify(this.costs));
  }
}

function firstLine(message: string | undefined): string {
  return (message ?? 'no error message').split('\n')[0]!.slice(0, 300);
}

/** The costs the reporter wrote to each of `files` (a file a run never wrote is an empty run). */
export function readCosts(files: readonly string[]): FileCost[] {
  return files.flatMap((file) => {
    try {
      return (JSON.parse(readFileSync(file, 'utf8')) as FileCost[]).map((cost) => ({ ...cost, run: file }));
    } catch {
      return [];
    }
  });
}

/**
 * A tier's wall time: each vitest process's span of it (its first file's start to its last file's end), and the
 * time those spans cover together, so that a tier run in two phases of `npm test` does not count the gap between.
 */
function wallTime(files: readonly FileCost[]): number {
  const spans = new Map<string | undefined, { startedAt: number; endedAt: number }>();
  for (const { run, startedAt, endedAt } of files) {
    const span = spans.get(run);
    spans.set(run, {
      startedAt: Math.min(span?.startedAt ?? startedAt, startedAt),
      endedAt: Math.max(span?.endedAt ?? endedAt, endedAt),
    });
  }
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const { startedAt, endedAt } of [...spans.values()].sort((a, b) => a.startedAt - b.startedAt)) {
    total += Math.max(0, endedAt - Math.max(startedAt, end));
    end = Math.max(end, endedAt);
  }
  return total;
}

/** Each tier's wall time (wallTime), the ten slowest files, what failed, and the closing line. */
export function costSummary(costs: readonly FileCost[]): string {
  const tiers = new Map<string, FileCost[]>();
  for (const cost of costs) tiers.set(cost.tier, [...(tiers.get(cost.tier) ?? []), cost]);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const firstStart = (files: readonly FileCost[]) => Math.min(...files.map((f) => f.startedAt));
  const lines = ['', 'each tier: files, wall time (tiers may overlap)'];
  for (const [tier, files] of [...tiers].sort((a, b) => firstStart(a[1]) - firstStart(b[1])))
    lines.push(
      `  ${tier.padEnd(12)} ${String(files.length).padStart(4)} files  ${seconds(wallTime(files)).padStart(7)}`,
    );
  lines.push('the ten slowest files');
  const slowest = [...costs].sort((a, b) => b.endedAt - b.startedAt - (a.endedAt - a.startedAt)).slice(0, 10);
  for (const cost of slowest)
    lines.push(`  ${seconds(cost.endedAt - cost.startedAt).padStart(7)}  ${cost.tier.padEnd(12)} ${cost.file}`);
  const failed = costs.filter((cost) => (cost.failures ?? []).length > 0);
  if (failed.length > 0) lines.push('', 'what failed');
  for (const cost of failed) {
    lines.push(`  ${cost.tier.padEnd(12)} ${cost.file}`);
    for (const failure of cost.failures ?? []) lines.push(`    ${failure}`);
  }
  const sum = (key: 'passed' | 'failed' | 'skipped') => costs.reduce((total, cost) => total + cost[key], 0);
  lines.push('', `${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
  return lines.join('\n');
}
