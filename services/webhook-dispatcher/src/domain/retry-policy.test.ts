import { describe, expect, it } from 'vitest';
import { jitterBoundMs, nextAttempt } from './retry-policy';

const now = new Date('2026-11-21T10:00:00.000Z');
const D31 = [10_000, 60_000, 600_000, 3_600_000];
const fixed = (value: number) => () => value;

describe('nextAttempt (D31, D40)', () => {
  it.each([
    // attempt that failed, rng, expected delay
    [1, 0.5, 10_000],
    [2, 0.5, 60_000],
    [3, 0.5, 600_000],
    [4, 0.5, 3_600_000],
    [1, 0, 9_000],
    [1, 0.999999, 11_000],
    [2, 0, 54_000],
    [4, 0.99999999, 3_960_000],
  ])('When attempt %i fails and rng gives %f, then the next is %i ms later', (attempt, r, delay) => {
    expect(nextAttempt({ attempt, now, delaysMs: D31, maxAttempts: 5, rng: fixed(r) })).toEqual({ at: new Date(now.getTime() + delay), delayMs: delay });
  });

  it.each([
    [5, 5],
    [6, 5],
    [3, 3],
    [1, 1],
  ])('When attempt %i of at most %i fails, then the delivery is exhausted', (attempt, maxAttempts) => {
    expect(nextAttempt({ attempt, now, delaysMs: D31, maxAttempts, rng: Math.random })).toEqual({ exhausted: true });
  });

  it('When the attempt number is not positive, then it is a programming error', () => {
    expect(() => nextAttempt({ attempt: 0, now, delaysMs: D31, maxAttempts: 5, rng: Math.random })).toThrow(RangeError);
  });

  it.each([[D31], [[50, 100, 150, 200]], [[100, 101, 102, 103]], [[1000, 1050, 1080, 1100]]])(
    'When delays are %j, then whatever the jitter, successive delays strictly increase and stay within ±10 %%',
    (delays) => {
      for (let trial = 0; trial < 2_000; trial += 1) {
        const seen: number[] = [];
        for (let attempt = 1; attempt <= 4; attempt += 1) {
          const result = nextAttempt({ attempt, now, delaysMs: delays, maxAttempts: 5, rng: trial % 2 ? Math.random : fixed(attempt % 2 ? 0.999999 : 0) });
          if (!('at' in result)) throw new Error('unexpected exhaustion');
          const base = delays[attempt - 1] ?? 0;
          expect(Math.abs(result.delayMs - base)).toBeLessThanOrEqual(base * 0.1);
          seen.push(result.delayMs);
        }
        for (let i = 1; i < seen.length; i += 1) expect(seen[i]).toBeGreaterThan(seen[i - 1] ?? Infinity);
      }
    },
  );

  it('When neighbours are close, then the jitter shrinks below 10 %', () => {
    expect(jitterBoundMs([1000, 1050, 1080, 1100], 0)).toBe(24);
    expect(jitterBoundMs([1000, 1050, 1080, 1100], 2)).toBe(9);
    expect(jitterBoundMs(D31, 0)).toBe(1_000);
  });
});
