// D52: the report files' CSV, pure. RFC 4180: CRLF after every line, a cell holding a comma, a quote, CR or LF is
// quoted and its quotes doubled. A text cell a spreadsheet would read as a formula (beginning with `=`, `+`, `-`,
// `@`, a tab or a CR) is prefixed with `'` (OWASP's CSV injection advice) before it is quoted. A number is written as
// the number it is: `-500` (a refund's amount) is a number to every spreadsheet, never a formula, and an amount
// column that a spreadsheet cannot sum would defeat the report (docs/books.md).

/** A cell as the rows give it: text (neutralised), an integer (as is), or nothing (an empty cell). */
export type CsvValue = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`a CSV amount must be an integer, not ${value}`);
    return String(value);
  }
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** The size of the file's chunks: big enough for few writes, small enough that no file is held whole. */
export const CSV_CHUNK_BYTES = 64 * 1024;

/**
 * The file's bytes in chunks of about CSV_CHUNK_BYTES: the header, then a line per row, read one at a time from
 * `rows` (a cursor), so memory holds one chunk whatever the number of rows. Each line is copied into the chunk's
 * bytes as soon as it is made, so no line outlives its row. `counted` receives the number of rows once the last is
 * written.
 */
export async function* csvChunks<R>(
  header: readonly string[],
  rows: AsyncIterable<R>,
  cells: (row: R) => readonly CsvValue[],
  counted: (rows: number) => void,
): AsyncGenerator<Buffer> {
  let chunk = Buffer.allocUnsafe(CSV_CHUNK_BYTES);
  let used = 0;
  let count = 0;
  const take = (line: string): Buffer | undefined => {
    const bytes = Buffer.byteLength(line);
    if (used + bytes <= chunk.length) {
      used += chunk.write(line, used);
      return undefined;
    }
    const full = chunk.subarray(0, used);
    chunk = Buffer.allocUnsafe(Math.max(CSV_CHUNK_BYTES, bytes));
    used = chunk.write(line, 0);
    return full;
  };
  const first = take(csvLine(header));
  if (first) yield first;
  for await (const row of rows) {
    count += 1;
    const full = take(csvLine(cells(row)));
    if (full) yield full;
  }
  yield chunk.subarray(0, used);
  counted(count);
}
