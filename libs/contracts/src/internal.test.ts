import { describe, expect, it } from 'vitest';
import { INTERNAL_API_HEADERS, orderRevisionOf } from './internal';

describe('the order revision header (issue 25.4: one name, one reader)', () => {
  const header = INTERNAL_API_HEADERS.orderRevision;

  it('reads the revision orders wrote, from a single or repeated header', () => {
    expect(orderRevisionOf({ [header]: '0' })).toBe(0);
    expect(orderRevisionOf({ [header]: '42' })).toBe(42);
    expect(orderRevisionOf({ [header]: ['7', '8'] })).toBe(7);
  });

  it('answers null for a missing, empty or malformed header', () => {
    for (const value of [undefined, '', ' 1', '-1', '1.5', 'abc', '1e3', '9999999999999999']) {
      expect(orderRevisionOf({ [header]: value }), String(value)).toBeNull();
    }
    expect(orderRevisionOf({})).toBeNull();
  });
});
