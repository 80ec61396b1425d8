import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Tools, benches, deploy jobs and other tests reach a service only through what its package.json `exports` names
// (`@checkout/orders/testing`, `@checkout/orders/indexes`, …), so that a file moved inside a service breaks its
// export file and nothing far away (docs/testing.md, "Where tests live").

const root = join(import.meta.dirname, '..', '..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'test-results', '.turbo']);
/** Every module specifier of a file: static and dynamic imports, re-exports, require. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The service folder (`services/orders/`) a repository path lies in, if any. */
function serviceOf(path: string): string | undefined {
  return /^services\/[^/]+\//.exec(path)?.[0];
}

/** `file: specifier` for each relative import of `source` (a file at `file`) that lands in another service. */
function relativeImportsIntoServices(file: string, source: string): string[] {
  const found: string[] = [];
  for (const [, specifier] of source.matchAll(SPECIFIER)) {
    if (!specifier?.startsWith('.')) continue;
    const target = relative(root, resolve(root, dirname(file), specifier))
      .split('\\')
      .join('/');
    const service = serviceOf(target);
    if (service && serviceOf(file) !== service) found.push(`${file}: ${specifier}`);
  }
  return found;
}

describe('services are reached through their exports', () => {
  it('When a file outside a service imports from it, then it names the package, never a relative path into it', () => {
    const files = sourceFiles(root).map((path) => relative(root, path).split('\\').join('/'));
    const found = files.flatMap((file) => relativeImportsIntoServices(file, readFileSync(join(root, file), 'utf8')));
    expect(found).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });

  it('the check finds such an import where there is one, and leaves a service its own files', () => {
    // Written in pieces, so that this file is not such an importer itself.
    const into = `import { OrdersStore } from '${'../../services'}/orders/src/store/orders.store';`;
    expect(relativeImportsIntoServices('bench/src/x.ts', into)).toEqual([
      'bench/src/x.ts: ../../services/orders/src/store/orders.store',
    ]);
    expect(
      relativeImportsIntoServices('scripts/x.ts', `const m = await import('${'../services'}/gateway/src/app');`),
    ).toHaveLength(1);
    expect(
      relativeImportsIntoServices('services/sessions/test/a.test.ts', `import { x } from '../${'../orders'}/src/y';`),
    ).toHaveLength(1);
    expect(relativeImportsIntoServices('services/orders/src/app.ts', `import { x } from './store/indexes';`)).toEqual(
      [],
    );
    expect(relativeImportsIntoServices('bench/src/x.ts', `import { x } from '@checkout/orders/testing';`)).toEqual([]);
  });
});
