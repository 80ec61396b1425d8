import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// A short, seeded `npm run fuzz` is part of `npm test`, so CI keeps what the fuzzer found
// fixed. Schemathesis runs every check against a stack the script starts on this run's engines (KAFKA_BROKERS /
// MONGODB_URL from the global setup), with a test key and a live key; the full run (`npm run fuzz`) adds the
// examples and coverage phases and more examples per operation.

const ROOT = resolve(import.meta.dirname, '..', '..');

function runFuzz(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'fuzz.ts'), ...args], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => done({ code: code ?? 1, output }));
  });
}

describe('npm run fuzz (short, seeded)', () => {
  it('When Schemathesis runs every check with a test key and a live key, then it covers every operation and finds nothing', async () => {
    expect(existsSync(join(ROOT, 'scripts', 'fuzz', 'checkout_hooks.py'))).toBe(true);
    const { code, output } = await runFuzz(['--max-examples', '5', '--seed', '12', '--phases', 'fuzzing,stateful']);
    const perKey = [
      ...output.matchAll(
        /(test|live) key: operations covered (\d+)\/(\d+), cases run (\d+), failures (\d+), errors (\d+)/g,
      ),
    ];
    expect(
      perKey.map((m) => m[1]),
      output.slice(-4000),
    ).toEqual(['test', 'live']);
    for (const [, key, covered, total, cases, failures, errors] of perKey) {
      expect(Number(covered), `${key} operations`).toBe(Number(total));
      expect(Number(total), `${key} operations`).toBeGreaterThanOrEqual(13);
      expect(Number(cases), `${key} cases`).toBeGreaterThan(0);
      expect({ failures: Number(failures), errors: Number(errors) }, `${key} key\n${output.slice(-6000)}`).toEqual({
        failures: 0,
        errors: 0,
      });
    }
    expect(code, output.slice(-4000)).toBe(0);
  }, 600_000);
});
