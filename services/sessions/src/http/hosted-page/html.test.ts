import { describe, expect, it } from 'vitest';
import { escapeHtml, formatUsd, parseUsdToCents } from './html';

describe('hosted page helpers', () => {
  it('escapes markup', () => {
    expect(escapeHtml(`<script>"x"&'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
  });
  it('formats cents as USD with integer arithmetic', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(5)).toBe('$0.05');
    expect(formatUsd(123456789)).toBe('$1,234,567.89');
  });
  it('parses dollar input into cents', () => {
    expect(parseUsdToCents('12')).toBe(1200);
    expect(parseUsdToCents('12.3')).toBe(1230);
    expect(parseUsdToCents('$1,234.05')).toBe(123405);
    expect(parseUsdToCents('1.234')).toBeNull();
    expect(parseUsdToCents('abc')).toBeNull();
  });
});
