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

describe('formatAmount in a locale', () => {
  it.each([
    ['en', 123456789, '$1,234,567.89'],
    ['de', 123456789, '1.234.567,89 $'],
    ['fr', 5, '0,05 $US'],
    ['ja', 1205, '$12.05'],
    ['pt-BR', 1205, 'US$ 12,05'],
    ['en', -50, '-$0.50'],
  ])('In %s, %i cents of USD read as the locale writes them', (locale, cents, shown) => {
    // Intl separates with no-break spaces; compared here as plain ones.
    expect(formatAmount(cents, 'USD', locale).replace(/[\u00a0\u202f]/g, ' ')).toBe(shown);
  });
  it('When asked for the code, then the currency is named by it', () => {
    expect(formatAmount(-1223, 'USD', 'ar', 'code')).toBe('\u200f\u200e-12.23\u00a0USD');
  });
  it('keeps every cent of an amount a float would round', () => {
    expect(formatAmount(900719925474099, 'USD', 'en')).toBe('$9,007,199,254,740.99');
  });
});
