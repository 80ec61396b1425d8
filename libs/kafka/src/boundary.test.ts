import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// libs/kafka owns kafkajs. Nothing else imports it (the engines lib, which starts a broker, aside), so
// replacing the client library is this lib's change alone (README.md).

const root = fileURLToPath(new URL('../../..', import.meta.url));
const ALLOWED = ['libs/kafka/', 'libs/engines/'];
const SKIP = new Set(['node_modules', '.git', 'dist', 'test-results', '.turbo']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('libs/kafka owns kafkajs', () => {
  it('no file outside libs/kafka (and libs/engines) imports kafkajs', () => {
    const importers = sourceFiles(root)
      .map((path) => relative(root, path))
      .filter((path) => !ALLOWED.some((prefix) => path.startsWith(prefix)))
      .filter((path) => /(from\s+|import\(|require\()\s*['"]kafkajs['"]/.test(readFileSync(join(root, path), 'utf8')));
    expect(importers).toEqual([]);
  });

  it('the public index exports neither kafkajs nor the module that binds our client to it', () => {
    const index = readFileSync(new URL('./index.ts', import.meta.url), 'utf8');
    const sources = [...index.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(5);
    expect(sources.filter((source) => source === 'kafkajs' || source === './kafkajs')).toEqual([]);
  });
});
