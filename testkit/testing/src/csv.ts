/**
 * RFC 4180 read back, to check what the report writer made (D52): quoted cells, doubled quotes, CRLF after every
 * record, the last one included. A file that ends inside a record is refused, since the writer never leaves one.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i += 1;
    } else if (quoted) {
      if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      records.push([...record, cell]);
      record = [];
      cell = '';
      i += 1;
    } else cell += c;
  }
  if (quoted || cell !== '' || record.length > 0) throw new Error('the CSV ends inside a record (no final CRLF)');
  return records;
}
