import { describe, expect, it } from 'vitest';
import { escapeHtml, formatUsd } from './html';

describe('hosted page helpers', () => {
  it('escapes markup', () => {
    expect(escapeHtml(`<script>"x"&'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
  });
  it('formats cents as USD with integer arithmetic', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(5)).toBe('$0.05');
    expect(formatUsd(123456789)).toBe('$1,234,567.89');
  });
});
