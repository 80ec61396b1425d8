import { describe, expect, it } from 'vitest';
import { CSV_CHUNK_BYTES, csvCell, csvChunks, csvLine } from './csv';

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of chunks) out.push(chunk.toString('utf8'));
  return out;
}

describe('the report CSV (D52, RFC 4180)', () => {
  it('When a cell holds a comma, a quote, CR or LF, then it is quoted and its quotes doubled', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
    expect(csvCell('plain text')).toBe('plain text');
    expect(csvCell('')).toBe('');
  });

  it('When a text cell begins with =, +, -, @, a tab or a CR, then it is prefixed with a quote mark', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe('"\'\rx"');
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('When a cell is a number, then it is written as it is, a negative amount too; nothing is an empty cell', () => {
    expect(csvCell(-500)).toBe('-500');
    expect(csvCell(0)).toBe('0');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(() => csvCell(1.5)).toThrow(RangeError);
  });

  it('When a line is written, then its cells are joined by commas and it ends with CRLF', () => {
    expect(csvLine(['id', 5, null, 'x,y'])).toBe('id,5,,"x,y"\r\n');
  });

  it('When rows are streamed, then the header comes first, every row once, in chunks bounded by the chunk size', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: `row_${i}`, amount: i % 2 === 0 ? i : -i }));
    let counted = -1;
    const chunks = await collect(
      csvChunks(
        ['id', 'amount'],
        fromArray(rows),
        (r) => [r.id, r.amount],
        (n) => (counted = n),
      ),
    );
    expect(counted).toBe(5000);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(CSV_CHUNK_BYTES);
    const lines = chunks.join('').split('\r\n');
    expect(lines[0]).toBe('id,amount');
    expect(lines[1]).toBe('row_0,0');
    expect(lines[2]).toBe('row_1,-1');
    expect(lines).toHaveLength(5002);
    expect(lines.at(-1)).toBe('');
  });

  it('When a line holds characters of several bytes or is longer than a chunk, then it is written whole, in UTF-8', async () => {
    const long = 'é'.repeat(CSV_CHUNK_BYTES);
    const chunks = await collect(
      csvChunks(
        ['name'],
        fromArray(['naïve', long, '€']),
        (r) => [r],
        () => undefined,
      ),
    );
    expect(chunks.join('')).toBe(`name\r\nnaïve\r\n${long}\r\n€\r\n`);
  });

  it('When there are no rows, then the file is the header row alone', async () => {
    let counted = -1;
    const chunks = await collect(
      csvChunks(
        ['id'],
        fromArray([]),
        () => [],
        (n) => (counted = n),
      ),
    );
    expect(chunks.join('')).toBe('id\r\n');
    expect(counted).toBe(0);
  });
});
