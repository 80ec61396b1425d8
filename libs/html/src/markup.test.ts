import { describe, expect, it } from 'vitest';
import { escapeHtml, markup } from './markup';

describe('escapeHtml', () => {
  it('escapes markup', () => {
    expect(escapeHtml(`<script>"x"&'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
    expect(escapeHtml('`')).toBe('&#96;');
    expect(escapeHtml(undefined)).toBe('');
  });
});

describe('markup', () => {
  it('joins lines that touch a tag or a value without a space, and others with one', () => {
    const rows = '<tr></tr>';
    const page = markup`
      <table>
        <tbody>
          ${rows}
        </tbody>
      </table>
      <p>One sentence
        written on two lines.</p>
      <input id="a"
        name="a">`;
    expect(page).toBe(
      '<table><tbody><tr></tr></tbody></table><p>One sentence written on two lines.</p><input id="a" name="a">',
    );
  });

  it('keeps the spaces of a line as they are, and inserts values unescaped', () => {
    expect(markup`<p>${'<b>'} and ${2} </p>`).toBe('<p><b> and 2 </p>');
  });
});
