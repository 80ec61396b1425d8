import { describe, expect, it } from 'vitest';
import { parseCsv } from './csv';

describe('reading a report file back (RFC 4180)', () => {
  it('When cells are quoted, hold commas, quotes or line breaks, then each comes back as written', () => {
    expect(parseCsv('id,note\r\n1,"a, ""b""\r\nc"\r\n2,\'=1+1\r\n')).toEqual([
      ['id', 'note'],
      ['1', 'a, "b"\r\nc'],
      ['2', "'=1+1"],
    ]);
  });

  it('When the file ends inside a record, then it is refused', () => {
    expect(() => parseCsv('id\r\n1')).toThrow(/ends inside a record/);
    expect(() => parseCsv('id\r\n"1\r\n')).toThrow(/ends inside a record/);
  });
});
