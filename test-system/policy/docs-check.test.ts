import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConfigReference, REFERENCE_PATH } from '../../scripts/config-reference';
import { checkDocs, formatFindings, ROOT } from './docs-check';

// Docs a newcomer can trust: every path, symbol, link, anchor and npm script the README, docs/ and the packages'
// READMEs name exists in this checkout (test-system/policy/docs-check.ts says what counts), and the configuration
// reference is what the services' schemas generate. A finding is printed as `file:line: what`.
describe('the documentation matches the code', () => {
  it('When a document names a file, a symbol, a link, an anchor or an npm script, then it exists', () => {
    expect(formatFindings(checkDocs())).toBe('');
  });

  it('When a service reads a setting, then docs/config-reference.md lists it, and lists nothing else', () => {
    expect(readFileSync(REFERENCE_PATH, 'utf8') === renderConfigReference()).toBe(true);
    const listed = new Set(
      [...readFileSync(join(ROOT, 'docs/config-reference.md'), 'utf8').matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map(
        (m) => m[1],
      ),
    );
    // What ships reads its settings only through the schemas; a direct read of the environment must be listed too.
    const shipped = execFileSync('git', ['ls-files', 'services/*/src/*.ts', 'libs/*/src/*.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => file !== '' && !file.endsWith('.test.ts') && !file.startsWith('libs/sdk/'));
    const read = shipped.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]),
    );
    expect(read.filter((name) => !listed.has(name))).toEqual([]);
  });
});
