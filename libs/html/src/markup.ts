const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Everything that is not our own markup goes through this: text and attribute values alike. */
export function escapeHtml(value: string | number | boolean | null | undefined): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

const joined = new WeakMap<TemplateStringsArray, readonly string[]>();

/**
 * A line break in a template's own text, with the indentation around it, goes when it touches a tag (`>` before
 * it, `<` after it) or stands alone between two values; elsewhere (between words, between attributes, between a
 * word and a value) it is one space. Spaces within a line stay as written. So markup is written one element per
 * line and renders as the same one line. It escapes nothing: values go through escapeHtml first.
 */
function joinLines(text: string): string {
  if (text.trim() === '' && text.includes('\n')) return '';
  return text.replace(/[ \t]*\n\s*/g, (run: string, offset: number) => {
    const before = text[offset - 1];
    const after = text[offset + run.length];
    return before === '>' || after === '<' ? '' : ' ';
  });
}

/** A template tag for markup written as readable lines (see joinLines); values are inserted as they are. */
export function markup(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  let parts = joined.get(strings);
  if (!parts) {
    parts = strings.map(joinLines);
    joined.set(strings, parts);
  }
  let out = parts[0] ?? '';
  for (let i = 0; i < values.length; i++) out += String(values[i]) + (parts[i + 1] ?? '');
  return out;
}
