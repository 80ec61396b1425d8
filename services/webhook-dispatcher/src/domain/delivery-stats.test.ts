import { describe, expect, it } from 'vitest';
import { deliveryStats, p95 } from './delivery-stats';

const at = (iso: string) => new Date(iso);

describe('deliveryStats (D47 chart)', () => {
  it('When attempts went to two hosts, then each host has its success count and p95, and older attempts are left out', () => {
    const from = at('2026-11-23T10:00:00.000Z');
    const stats = deliveryStats(
      [
        {
          url: 'https://b.example/hook',
          attempts: [
            { at: at('2026-11-24T09:00:00.000Z'), statusCode: 500, durationMs: 30, error: 'HTTP 500' },
            { at: at('2026-11-24T09:01:00.000Z'), statusCode: 200, durationMs: 10, error: null },
          ],
        },
        {
          url: 'https://a.example:8443/x',
          attempts: [
            { at: at('2026-11-22T09:00:00.000Z'), statusCode: 200, durationMs: 5, error: null },
            { at: at('2026-11-24T09:00:00.000Z'), statusCode: null, durationMs: 5000, error: 'timeout' },
          ],
        },
      ],
      from,
    );
    expect(stats).toEqual([
      { host: 'a.example:8443', attempts: 1, succeeded: 0, p95DurationMs: 5000 },
      { host: 'b.example', attempts: 2, succeeded: 1, p95DurationMs: 30 },
    ]);
  });

  it('When there are 100 durations 1..100, then p95 is 95 (nearest rank)', () => {
    expect(p95(Array.from({ length: 100 }, (_, i) => 100 - i))).toBe(95);
    expect(p95([])).toBe(0);
  });
});
