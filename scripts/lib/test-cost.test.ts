import { describe, expect, it } from 'vitest';
import { costSummary, type FileCost } from './test-cost';

const file = (name: string, tier: string, startedAt: number, endedAt: number, failed = 0, run = tier): FileCost => ({
  file: name,
  tier,
  run,
  startedAt,
  endedAt,
  passed: 2,
  failed,
  skipped: 0,
  failures: Array.from({ length: failed }, (_, n) => `When case ${n + 1}: expected 3 to be 4`),
});

describe('costSummary', () => {
  it('When two lanes ran tiers side by side, and one tier in two phases, then each tier spans the first start to the last end in each of its processes, without the gap between phases, the slowest files lead, what failed is named with its error, and the last line counts every test', () => {
    const summary = costSummary([
      file('a.test.ts', 'integration', 0, 10_000),
      file('b.test.ts', 'integration', 25_000, 40_000, 1),
      file('c.rollout.ts', 'rollout', 2_000, 300_000, 0, 'first'),
      file('d.rollout.ts', 'rollout', 600_000, 620_000, 0, 'last'),
      file('e.rollout.ts', 'rollout', 630_000, 650_000, 0, 'last'),
    ]);
    const lines = summary.split('\n');
    expect(lines).toContain('  integration     2 files     40 s');
    // 298 s and 50 s, not the 648 s from the first start to the last end; integration's gap between its files counts.
    expect(lines).toContain('  rollout         3 files    348 s');
    const slowest = lines.slice(lines.indexOf('the ten slowest files') + 1, lines.indexOf('the ten slowest files') + 5);
    expect(slowest.map((line) => line.trim().split(/\s+/).at(-1))).toEqual([
      'c.rollout.ts',
      'd.rollout.ts',
      'e.rollout.ts',
      'b.test.ts',
    ]);
    const failed = lines.indexOf('what failed');
    expect(lines.slice(failed + 1, failed + 3)).toEqual([
      '  integration  b.test.ts',
      '    When case 1: expected 3 to be 4',
    ]);
    expect(lines.at(-1)).toBe('10 passed, 1 failed, 0 skipped');
  });
});
