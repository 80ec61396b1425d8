import { describe, expect, it } from 'vitest';
import { formatTimeLeft } from './countdown';

describe('formatTimeLeft (hosted page countdown)', () => {
  it.each([
    [0, '0:00'],
    [-5_000, '0:00'],
    [400, '0:01'],
    [59_000, '0:59'],
    [61_000, '1:01'],
    [3_599_000, '59:59'],
    [3_600_000, '1:00:00'],
    [24 * 3_600_000 + 5_000, '24:00:05'],
  ])('When %i ms are left, then it shows %s', (ms, shown) => {
    expect(formatTimeLeft(ms)).toBe(shown);
  });
});
