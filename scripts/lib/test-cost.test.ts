import { describe, expect, it } from 'vitest';
import { costSummary, type FileCost } from './test-cost';

const file = (name: string, tier: string, startedAt: number, endedAt: number, failed = 0): FileCost => ({
  file: name,
  tier,
  startedAt,
  endedAt,
  passed: 2,
  failed,
  skipped: 0,
});

describe('costSummary', () => {
  it('When two lanes ran tiers side by side, then each tier spans its first start to its last end, the slowest files lead, and the last line counts every test', () => {
    const summary = costSummary([
      file('a.test.ts', 'integration', 0, 10_000),
      file('b.test.ts', 'integration', 5_000, 40_000, 1),
      file('c.rollout.ts', 'rollout', 2_000, 300_000),
    ]);
    const lines = summary.split('\n');
    expect(lines).toContain('  integration     2 files     40 s');
    expect(lines).toContain('  rollout         1 files    298 s');
    const slowest = lines.slice(lines.indexOf('the ten slowest files') + 1, lines.indexOf('the ten slowest files') + 4);
    expect(slowest.map((line) => line.trim().split(/\s+/).at(-1))).toEqual(['c.rollout.ts', 'b.test.ts', 'a.test.ts']);
    expect(lines.at(-1)).toBe('6 passed, 1 failed, 0 skipped');
  });
});
