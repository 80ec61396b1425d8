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
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') counts.passed += 1;
      else if (state === 'failed') counts.failed += 1;
      else counts.skipped += 1;
    }
    // A file that fails before its tests run (an import error, a failing hook) counts as one failure.
    if (counts.failed === 0 && module.state() === 'failed') counts.failed = 1;
    this.costs.push({
      file: module.relativeModuleId,
      tier: module.project.name,
      startedAt: this.started.get(module.id) ?? Date.now(),
      endedAt: Date.now(),
      ...counts,
    });
  }

  onTestRunEnd(): void {
    const target = process.env.TEST_COST_FILE;
    if (target) writeFileSync(target, JSON.stringify(this.costs));
  }
}

/** The costs the reporter wrote to each of `files` (a file a run never wrote is an empty run). */
export function readCosts(files: readonly string[]): FileCost[] {
  return files.flatMap((file) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as FileCost[];
    } catch {
      return [];
    }
  });
}

/** Each tier's wall time (first file's start to last file's end), the ten slowest files, and the closing line. */
export function costSummary(costs: readonly FileCost[]): string {
  const tiers = new Map<string, { from: number; to: number; files: number }>();
  for (const cost of costs) {
    const tier = tiers.get(cost.tier) ?? { from: cost.startedAt, to: cost.endedAt, files: 0 };
    tiers.set(cost.tier, {
      from: Math.min(tier.from, cost.startedAt),
      to: Math.max(tier.to, cost.endedAt),
      files: tier.files + 1,
    });
  }
  const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const lines = ['', 'each tier: files, wall time (tiers may overlap)'];
  for (const [tier, { from, to, files }] of [...tiers].sort((a, b) => a[1].from - b[1].from))
    lines.push(`  ${tier.padEnd(12)} ${String(files).padStart(4)} files  ${seconds(to - from).padStart(7)}`);
  lines.push('the ten slowest files');
  const slowest = [...costs].sort((a, b) => b.endedAt - b.startedAt - (a.endedAt - a.startedAt)).slice(0, 10);
  for (const cost of slowest)
    lines.push(`  ${seconds(cost.endedAt - cost.startedAt).padStart(7)}  ${cost.tier.padEnd(12)} ${cost.file}`);
  const sum = (key: 'passed' | 'failed' | 'skipped') => costs.reduce((total, cost) => total + cost[key], 0);
  lines.push('', `${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
  return lines.join('\n');
}
