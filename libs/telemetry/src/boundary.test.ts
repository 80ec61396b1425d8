import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// libs/telemetry owns the OpenTelemetry SDK: nothing else imports @opentelemetry/*, so changing the SDK (or its
// versions, which move together) is this lib's change alone, and no OpenTelemetry type crosses a package.

const root = fileURLToPath(new URL('../../..', import.meta.url));
const SKIP = new Set(['node_modules', '.git', 'dist', 'test-results', '.turbo']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('libs/telemetry owns OpenTelemetry', () => {
  it('no file outside libs/telemetry imports @opentelemetry/*', () => {
    const importers = sourceFiles(root)
      .map((path) => relative(root, path))
      .filter((path) => !path.startsWith('libs/telemetry/'))
      .filter((path) =>
        /(from\s+|import\(|require\()\s*['"]@opentelemetry\//.test(readFileSync(join(root, path), 'utf8')),
      );
    expect(importers).toEqual([]);
  });

  it('only libs/telemetry depends on @opentelemetry/* packages', () => {
    const dependents: string[] = [];
    for (const top of ['libs', 'services', 'bench', 'test-e2e', 'deploy'])
      for (const entry of readdirSync(join(root, top), { withFileTypes: true })) {
        const manifest = join(root, top, entry.isDirectory() ? entry.name : '', 'package.json');
        let text: string;
        try {
          text = readFileSync(manifest, 'utf8');
        } catch {
          continue;
        }
        if (text.includes('"@opentelemetry/') && !manifest.includes('libs/telemetry/'))
          dependents.push(relative(root, manifest));
      }
    expect(dependents).toEqual([]);
  });
});
