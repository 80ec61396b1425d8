import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// One library owns each third-party client it wraps, so replacing it (or moving its versions, which go together)
// is that library's change alone, and none of its types crosses a package (docs/engineering.md, libraries):
// kafkajs belongs to libs/kafka (and testkit/engines, which starts brokers), OpenTelemetry to libs/telemetry.

const root = join(import.meta.dirname, '..', '..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'test-results', '.turbo']);
const OWNERS: { imports: RegExp; name: string; allowed: string[] }[] = [
  {
    name: 'kafkajs',
    imports: /(from\s+|import\(|require\()\s*['"]kafkajs['"]/,
    allowed: ['libs/kafka/', 'testkit/engines/'],
  },
  {
    name: '@opentelemetry/*',
    imports: /(from\s+|import\(|require\()\s*['"]@opentelemetry\//,
    allowed: ['libs/telemetry/'],
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const files = sourceFiles(root).map((path) => relative(root, path));

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

describe('import boundaries', () => {
  it.each(OWNERS)('no file outside its owner imports $name', ({ imports, allowed }) => {
    const importers = files
      .filter((path) => !allowed.some((prefix) => path.startsWith(prefix)))
      .filter((path) => imports.test(readFileSync(join(root, path), 'utf8')));
    expect(importers).toEqual([]);
  });

  it('only libs/telemetry depends on @opentelemetry/* packages', () => {
    const dependents: string[] = [];
    for (const top of ['libs', 'services', 'bench', 'test-e2e', 'deploy', '.'])
      for (const entry of readdirSync(join(root, top), { withFileTypes: true })) {
        if (!entry.isDirectory() && top !== '.') continue;
        const manifest = top === '.' ? join(root, 'package.json') : join(root, top, entry.name, 'package.json');
        let text: string;
        try {
          text = readFileSync(manifest, 'utf8');
        } catch {
          continue;
        }
        // Dependencies only: the root's `overrides` pins the version libs/telemetry uses for everyone.
        const pkg = JSON.parse(text) as Partial<Record<(typeof DEPENDENCY_FIELDS)[number], Record<string, string>>>;
        const names = DEPENDENCY_FIELDS.flatMap((field) => Object.keys(pkg[field] ?? {}));
        if (names.some((n) => n.startsWith('@opentelemetry/')) && !manifest.includes('libs/telemetry/'))
          dependents.push(relative(root, manifest));
      }
    expect(dependents).toEqual([]);
  });

  // The lint rule says so while the code is written: every folder's block of eslint.config.js that restricts imports
  // keeps the OpenTelemetry ban (a later block replaces an earlier one's list whole, so a block without it lifts it).
  it('ESLint bans @opentelemetry/* in every TypeScript file outside libs/telemetry, and not inside it', async () => {
    const eslint = new ESLint({ cwd: root });
    const banned = async (path: string) => {
      const config = (await eslint.calculateConfigForFile(path)) as { rules?: Record<string, unknown> } | undefined;
      const rule = config?.rules?.['@typescript-eslint/no-restricted-imports'] as
        [unknown, { patterns?: Array<{ group?: string[] }> }] | undefined;
      return Boolean(rule?.[1]?.patterns?.some((pattern) => pattern.group?.includes('@opentelemetry/*')));
    };
    const checked = files.filter((path) => path.endsWith('.ts') && !path.startsWith('testkit/engines/java/'));
    const unbanned: string[] = [];
    for (const path of checked) if (!path.startsWith('libs/telemetry/') && !(await banned(path))) unbanned.push(path);
    expect(unbanned).toEqual([]);
    expect(await banned('libs/telemetry/src/index.ts')).toBe(false);
    expect(checked.length).toBeGreaterThan(100);
  });

  it('the check finds an import where there is one', () => {
    const [kafka, telemetry] = OWNERS;
    // Written in two pieces, so that this file is not an importer itself.
    expect(kafka!.imports.test(`import { Kafka } from ${"'kafka"}js';`)).toBe(true);
    expect(telemetry!.imports.test(`import { trace } from ${"'@opentelemetry"}/api';`)).toBe(true);
    expect(
      files.filter((path) => telemetry!.imports.test(readFileSync(join(root, path), 'utf8'))).length,
    ).toBeGreaterThan(0);
  });
});

// Tools, benches, deploy jobs and other tests reach a service only through what its package.json `exports` names
// (`@checkout/orders/testing`, `@checkout/orders/indexes`, …), so that a file moved inside a service breaks its
// export file and nothing far away (docs/testing.md, "Where tests live").

/** Every module specifier of a file: static and dynamic imports, re-exports, require. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

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
