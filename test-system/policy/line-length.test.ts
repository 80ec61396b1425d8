import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// No product line over 160 characters, strings and markup included (docs/engineering.md, "Rules a tool enforces"):
// ESLint's max-len keeps code at 120 but must let long strings through, so a 500-character description or a
// page's markup on one line would pass it. Product code is what ships: libs/*/src and services/*/src, tests aside.

const LIMIT = 160;
const root = resolve(import.meta.dirname, '../..');

/** The product files git tracks, and the new ones it does not ignore. */
function productFiles(): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', 'libs/*/src/*.ts', 'services/*/src/*.ts'],
    { cwd: root, encoding: 'utf8' },
  );
  return [...new Set(listed.split('\n'))].filter((file) => file !== '' && !file.endsWith('.test.ts'));
}

/** `file:line (length)` of every line of `text` longer than `limit`. */
function longLines(file: string, text: string, limit = LIMIT): string[] {
  return text
    .split('\n')
    .flatMap((line, index) => (line.length > limit ? [`${file}:${index + 1} (${line.length})`] : []));
}

describe('line length of what ships', () => {
  it('When a product line is longer than 160 characters, then it is named here', () => {
    expect(longLines('a.ts', `short\n${'x'.repeat(161)}\n${'y'.repeat(160)}`)).toEqual(['a.ts:2 (161)']);
  });

  it('When the product files are read, then none has a line longer than 160 characters', () => {
    const files = productFiles();
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => longLines(file, readFileSync(join(root, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
