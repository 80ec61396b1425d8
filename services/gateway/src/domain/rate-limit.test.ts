import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit';

// D43: the per-key limit is enforced from memory, each replica admitting its share; pure logic, so the
// clock is an argument.

const WINDOW = 1_000;
const start = 1_700_000_000_000; // a multiple of WINDOW: the start of a window

function admitted(limiter: RateLimiter, key: string, times: number, now: number): number {
  let count = 0;
  for (let i = 0; i < times; i++) if (limiter.admit(key, now) === 0) count++;
  return count;
}

describe('RateLimiter (D43)', () => {
  it('admits the limit per key and window on one replica, then answers the seconds until the window ends', () => {
    const limiter = new RateLimiter({ limitPerWindow: 5, windowMs: WINDOW, replicas: 1 });
    expect(admitted(limiter, 'key_a', 5, start)).toBe(5);
    expect(limiter.admit('key_a', start + 10)).toBe(1);
    expect(limiter.admit('key_a', start + 999)).toBe(1);
  });

  it('keeps a budget per key', () => {
    const limiter = new RateLimiter({ limitPerWindow: 2, windowMs: WINDOW, replicas: 1 });
    expect(admitted(limiter, 'key_a', 3, start)).toBe(2);
    expect(admitted(limiter, 'key_b', 3, start)).toBe(2);
  });

  it('admits again when the next window starts, and forgets the keys of past windows', () => {
    const limiter = new RateLimiter({ limitPerWindow: 3, windowMs: WINDOW, replicas: 1 });
    expect(admitted(limiter, 'key_a', 4, start + 500)).toBe(3);
    expect(admitted(limiter, 'key_b', 1, start + 600)).toBe(1);
    expect(limiter.trackedKeys).toBe(2);
    expect(admitted(limiter, 'key_a', 4, start + WINDOW)).toBe(3);
    expect(limiter.trackedKeys).toBe(1);
  });

  it('each of N replicas admits ceil(limit / N), so N replicas together admit about the limit', () => {
    const replicas = [0, 1, 2].map(() => new RateLimiter({ limitPerWindow: 10, windowMs: WINDOW, replicas: 3 }));
    expect(replicas[0]?.share).toBe(4);
    const total = replicas.reduce((sum, limiter) => sum + admitted(limiter, 'key_a', 20, start), 0);
    expect(total).toBe(12);
    // A share is never 0, even with more replicas than the limit.
    expect(new RateLimiter({ limitPerWindow: 2, windowMs: WINDOW, replicas: 5 }).share).toBe(1);
  });

  it('Retry-After is whole seconds, at least 1, up to the end of a long window', () => {
    const limiter = new RateLimiter({ limitPerWindow: 1, windowMs: 5_000, replicas: 1 });
    const windowStart = Math.floor(start / 5_000) * 5_000;
    expect(limiter.admit('key_a', windowStart)).toBe(0);
    expect(limiter.admit('key_a', windowStart + 100)).toBe(5);
    expect(limiter.admit('key_a', windowStart + 4_100)).toBe(1);
    expect(limiter.admit('key_a', windowStart + 4_999)).toBe(1);
  });

  it('weighs each request by its cost (a limit on body bytes): admitted while under the share, so one large body passes alone', () => {
    const bytes = new RateLimiter({ limitPerWindow: 100_000, windowMs: WINDOW, replicas: 1 });
    expect(bytes.admit('key_a', start, 60_000)).toBe(0);
    expect(bytes.admit('key_a', start + 1, 30_000)).toBe(0);
    expect(bytes.admit('key_a', start + 2, 20_000)).toBe(0); // 90 000 used: under the share, so it passes
    expect(bytes.admit('key_a', start + 3, 10)).toBe(1);
    expect(bytes.admit('key_a', start + 4, 0)).toBe(1);
    // A body larger than the whole share is not refused forever: it passes first in its window.
    expect(bytes.admit('key_b', start, 1_000_000)).toBe(0);
    expect(bytes.admit('key_b', start + 5, 1)).toBe(1);
    expect(bytes.admit('key_b', start + WINDOW, 1)).toBe(0);
  });

  it('refuses a limit, window or replica count below 1', () => {
    expect(() => new RateLimiter({ limitPerWindow: 0, windowMs: WINDOW, replicas: 1 })).toThrow(RangeError);
    expect(() => new RateLimiter({ limitPerWindow: 1, windowMs: WINDOW, replicas: 0 })).toThrow(RangeError);
  });
});
