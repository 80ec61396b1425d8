import { describe, expect, it } from 'vitest';
import { jitterBoundMs, nextAttempt, parseRetryAfter } from './retry-policy';

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
    expect(nextAttempt({ attempt, now, delaysMs: D31, maxAttempts: 5, rng: fixed(r) })).toEqual({
      at: new Date(now.getTime() + delay),
      delayMs: delay,
    });
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
          const result = nextAttempt({
            attempt,
            now,
            delaysMs: delays,
            maxAttempts: 5,
            rng: trial % 2 ? Math.random : fixed(attempt % 2 ? 0.999999 : 0),
          });
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

describe('Retry-After (RFC 9110) as a floor under the schedule (D31, D40)', () => {
  const draw = (attempt: number, retryAfterMs: number | null, rng = 0.5) => {
    const result = nextAttempt({ attempt, now, delaysMs: D31, maxAttempts: 5, rng: fixed(rng), retryAfterMs });
    if (!('delayMs' in result)) throw new Error('unexpected exhaustion');
    return result.delayMs;
  };

  it.each([
    // attempt that failed, Retry-After in ms, expected delay
    [1, null, 10_000],
    [1, 0, 10_000], // asking for less than the schedule changes nothing
    [1, 5_000, 10_000],
    [1, 30_000, 30_000], // honoured
    [1, 120_000, 53_999], // capped just under the lowest draw of the next delay (60 s − 6 s jitter)
    [2, 300_000, 300_000],
    [3, 3_600_000, 3_239_999], // 1 h − 6 min − 1 ms
    [4, 7_200_000, 3_960_000], // the last delay stretches only to the top of its jitter
  ])('When attempt %i fails with Retry-After %j ms, then the next is %i ms later', (attempt, retryAfterMs, delay) => {
    expect(draw(attempt, retryAfterMs)).toBe(delay);
  });

  it('When every attempt asks for a day, then whatever the jitter, successive delays still strictly increase', () => {
    for (const r of [0, 0.5, 0.999999]) {
      const delays = [1, 2, 3, 4].map((attempt) => draw(attempt, 86_400_000, r));
      for (let i = 1; i < delays.length; i += 1) expect(delays[i]).toBeGreaterThan(delays[i - 1] ?? Infinity);
    }
  });

  it('When the last attempt fails, then Retry-After does not buy another one', () => {
    expect(
      nextAttempt({ attempt: 5, now, delaysMs: D31, maxAttempts: 5, rng: Math.random, retryAfterMs: 1_000 }),
    ).toEqual({ exhausted: true });
  });

  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Sat, 21 Nov 2026 10:02:00 GMT', 120_000],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0], // in the past
    ['', null],
    [undefined, null],
    ['-5', null],
    ['1.5', null],
    ['soon', null],
    ['2026-11-21T10:02:00Z', null], // not an HTTP-date
    ['99999999999999999999', null],
  ])('When Retry-After is %j, then it means %j ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
