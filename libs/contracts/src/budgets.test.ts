import { describe, expect, it } from 'vitest';
import { budgetResetsAt, exceededBudget, secondsUntil, usageDay, type TenantUsageResponse } from './budgets';

const resetsAt = '2026-11-30T00:00:00.000Z';
function usage(used: { events: number; deliveries: number; bytes: number }): TenantUsageResponse {
  return {
    day: '2026-11-29',
    resetsAt,
    budgets: {
      events: { used: used.events, limit: 10 },
      deliveries: { used: used.deliveries, limit: 50 },
      bytes: { used: used.bytes, limit: 1_000 },
    },
  };
}

describe('Which daily budget is used up (the gateway refuses by it, 429 QUOTA_EXCEEDED)', () => {
  it('When every count is under its limit, then none is', () => {
    expect(exceededBudget(usage({ events: 9, deliveries: 49, bytes: 999 }))).toBeNull();
  });

  it.each([
    ['events', { events: 10, deliveries: 0, bytes: 0 }, 10],
    ['deliveries', { events: 0, deliveries: 51, bytes: 0 }, 50],
    ['bytes', { events: 0, deliveries: 0, bytes: 1_000 }, 1_000],
  ] as const)(
    'When %s reaches its limit, then it is the one named, with its limit and reset',
    (budget, used, limit) => {
      expect(exceededBudget(usage(used))).toEqual({ budget, limit, resetsAt });
    },
  );

  it('When several are used up, then the first of events, deliveries, bytes is named', () => {
    expect(exceededBudget(usage({ events: 0, deliveries: 50, bytes: 5_000 }))?.budget).toBe('deliveries');
    expect(exceededBudget(usage({ events: 11, deliveries: 50, bytes: 5_000 }))?.budget).toBe('events');
  });
});

describe('When the budgets reset: the next UTC midnight', () => {
  it.each([
    ['2026-11-29T13:45:10.123Z', '2026-11-30T00:00:00.000Z', '2026-11-29'],
    ['2026-11-29T00:00:00.000Z', '2026-11-30T00:00:00.000Z', '2026-11-29'],
    ['2026-11-29T23:59:59.999Z', '2026-11-30T00:00:00.000Z', '2026-11-29'],
    ['2026-12-31T20:00:00.000Z', '2027-01-01T00:00:00.000Z', '2026-12-31'],
    ['2028-02-28T12:00:00.000Z', '2028-02-29T00:00:00.000Z', '2028-02-28'],
  ])('At %s it is %s, counting on day %s', (at, next, day) => {
    expect(budgetResetsAt(new Date(at)).toISOString()).toBe(next);
    expect(usageDay(new Date(at))).toBe(day);
  });

  it('Retry-After is the whole seconds until then, at least 1', () => {
    const reset = new Date('2026-11-30T00:00:00.000Z');
    expect(secondsUntil(reset, new Date('2026-11-29T23:00:00.000Z'))).toBe(3_600);
    expect(secondsUntil(reset, new Date('2026-11-29T23:59:59.001Z'))).toBe(1);
    expect(secondsUntil(reset, new Date('2026-11-30T00:00:00.500Z'))).toBe(1);
    expect(secondsUntil(reset, new Date('2026-11-29T00:00:00.000Z'))).toBe(86_400);
  });
});
