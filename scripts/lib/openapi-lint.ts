import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '@checkout/gateway/openapi';

// The OpenAPI document as third-party linters read it (the second audit): Spectral's `spectral:oas` and the OWASP
// API Security ruleset, with the exceptions scripts/openapi/spectral.yaml writes down. The document is written
// next to the ruleset (its overrides name parts of `openapi.json` relative to it); git ignores it.

const DIR = fileURLToPath(new URL('../openapi/', import.meta.url));
const SPECTRAL = fileURLToPath(new URL('../../node_modules/.bin/spectral', import.meta.url));

export interface SpectralFinding {
  code: string;
  message: string;
  path: string[];
  severity: number;
}

/** Lints the document the gateway serves (for `serverUrl`); every finding of any severity, none when clean. */
export async function lintOpenApi(serverUrl = 'https://api.example.com'): Promise<SpectralFinding[]> {
  await writeFile(join(DIR, 'openapi.json'), `${JSON.stringify(buildOpenApiDocument(serverUrl), null, 2)}\n`);
  const out = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const results = join(out, 'results.json');
    // Exit 1 when there are findings; they are read from the file either way.
    await promisify(execFile)(
      SPECTRAL,
      ['lint', 'openapi.json', '--ruleset', 'spectral.yaml', '--format', 'json', '--output', results, '--quiet'],
      { cwd: DIR, timeout: 120_000 },
    ).catch((err: { code?: number }) => {
      if (err.code !== 1) throw err;
    });
    return JSON.parse(await readFile(results, 'utf8')) as SpectralFinding[];
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
