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
  it('joins lines that touch a tag without a space, and others with one', () => {
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

  it('drops a line break that stands alone between two values, and keeps one space between a word and a value', () => {
    const [a, b] = ['<b>1</b>', '<b>2</b>'];
    expect(markup`
      ${a}
      ${b}
      at
      ${a}:
      ${b}`).toBe('<b>1</b><b>2</b> at <b>1</b>: <b>2</b>');
  });

  it('keeps the spaces of a line as they are, and inserts values unescaped', () => {
    expect(markup`<p>${'<b>'} and ${2} </p>`).toBe('<p><b> and 2 </p>');
    expect(markup`${0} ${0} ${'x'}`).toBe('0 0 x');
  });
});
