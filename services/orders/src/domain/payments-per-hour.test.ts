import { describe, expect, it } from 'vitest';
import { paymentsChartStart, paymentsPerHour } from './payments-per-hour';

describe('paymentsPerHour (D47 chart)', () => {
  it('When the database counted payments in some hours, then each hour shows its own, the others 0, and the window ends with the current hour', () => {
    const now = new Date('2026-11-24T10:30:00.000Z');
    expect(paymentsChartStart(now).toISOString()).toBe('2026-11-17T11:00:00.000Z');
    const result = paymentsPerHour(
      [
        { hour: 167, count: 2, amount: 350 },
        { hour: 165, count: 1, amount: 40 },
        // Outside the window (a clock that moved between the query and now): left out.
        { hour: 168, count: 9, amount: 999 },
        { hour: -1, count: 9, amount: 999 },
      ],
      now,
    );
    expect(result.hours).toHaveLength(168);
    expect(result.from.toISOString()).toBe('2026-11-17T11:00:00.000Z');
    expect(result.hours.at(-1)).toEqual({ hour: new Date('2026-11-24T10:00:00.000Z'), count: 2, amount: 350 });
    expect(result.hours.at(-3)).toEqual({ hour: new Date('2026-11-24T08:00:00.000Z'), count: 1, amount: 40 });
    expect(result.hours.reduce((n, h) => n + h.count, 0)).toBe(3);
  });
});
