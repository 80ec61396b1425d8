import { describe, expect, it } from 'vitest';
import { formatAmount } from './amounts';

describe('formatAmount', () => {
  it('formats cents as USD with integer arithmetic', () => {
    expect(formatAmount(0)).toBe('$0.00');
    expect(formatAmount(5)).toBe('$0.05');
    expect(formatAmount(123456789)).toBe('$1,234,567.89');
    expect(formatAmount(-50)).toBe('−$0.50');
  });
  it('names any other currency by its code', () => {
    expect(formatAmount(300, 'EUR')).toBe('EUR 3.00');
  });
});
