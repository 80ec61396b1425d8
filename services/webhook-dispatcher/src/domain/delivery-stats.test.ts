import { describe, expect, it } from 'vitest';
import { deliveryStats, p95 } from './delivery-stats';

describe('deliveryStats (D47 chart)', () => {
  it('When the database summed attempts for two hosts, then each host has its success count and p95, sorted by name', () => {
    const stats = deliveryStats([
      {
        host: 'b.example',
        attempts: 2,
        succeeded: 1,
        durations: [
          { ms: 30, n: 1 },
          { ms: 10, n: 1 },
        ],
      },
      { host: 'a.example:8443', attempts: 1, succeeded: 0, durations: [{ ms: 5000, n: 1 }] },
    ]);
    expect(stats).toEqual([
      { host: 'a.example:8443', attempts: 1, succeeded: 0, p95DurationMs: 5000 },
      { host: 'b.example', attempts: 2, succeeded: 1, p95DurationMs: 30 },
    ]);
  });

  it('When there are 100 durations 1..100, then p95 is 95 (nearest rank), also as a histogram', () => {
    expect(p95(Array.from({ length: 100 }, (_, i) => ({ ms: 100 - i, n: 1 })))).toBe(95);
    expect(
      p95([
        { ms: 1200, n: 5 },
        { ms: 40, n: 95 },
      ]),
    ).toBe(40);
    expect(
      p95([
        { ms: 1200, n: 6 },
        { ms: 40, n: 94 },
      ]),
    ).toBe(1200);
    expect(p95([])).toBe(0);
  });
});
