import { describe, expect, it } from 'vitest';
import { paymentsPerHour } from './payments-per-hour';

describe('paymentsPerHour (D47 chart)', () => {
  it('When payments fall in different hours, then each hour counts its own and the window ends with the current hour', () => {
    const now = new Date('2026-11-24T10:30:00.000Z');
    const result = paymentsPerHour(
      [
        { amount: 100, appliedAt: new Date('2026-11-24T10:05:00.000Z') },
        { amount: 250, appliedAt: new Date('2026-11-24T10:59:59.999Z') },
        { amount: 40, appliedAt: new Date('2026-11-24T08:00:00.000Z') },
        { amount: 999, appliedAt: new Date('2026-11-17T10:59:00.000Z') },
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
