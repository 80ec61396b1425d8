import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// A merchant outside TypeScript generates a client from GET /v0/openapi.json. `npm run clients`
// generates one with openapi-python-client and one with oapi-codegen (Go), against a stack it starts on this run's
// engines, and runs a merchant's journey with each (test-e2e/clients/). Both generators must read the whole
// document without a warning: before the fix, openapi-python-client dropped CheckoutSession, SessionResponse and
// the session PATCH ("Unable to parse schema /components/schemas/JsonValue"), and oapi-codegen's client did not
// compile (its RecoverEventsResponse wrapper collided with our schema of that name).

const ROOT = resolve(import.meta.dirname, '..', '..');

function runClients(): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'clients.ts')], {
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

describe('npm run clients: generated Python and Go clients', () => {
  it('When both generators read the OpenAPI document, then neither warns, each can call every operation, and each runs the merchant journey', async () => {
    const { code, output } = await runClients();
    const lines = [
      ...output.matchAll(
        /(python|go): (.+?), warnings (\d+), operations (\d+)\/(\d+), models (\d+), journey (passed|FAILED)/g,
      ),
    ];
    expect(
      lines.map((m) => m[1]),
      output.slice(-4000),
    ).toEqual(['python', 'go']);
    for (const [, language, , warnings, operations, total, models, journey] of lines) {
      expect(Number(warnings), `${language} warnings\n${output.slice(-4000)}`).toBe(0);
      expect(Number(operations), `${language} operations`).toBe(Number(total));
      expect(Number(total), 'operations in the document').toBeGreaterThanOrEqual(14);
      expect(Number(models), `${language} models`).toBeGreaterThan(0);
      expect(journey, `${language} journey\n${output.slice(-4000)}`).toBe('passed');
    }
    expect(output).toMatch(/CLIENTS RESULT: passed/);
    expect(code, output.slice(-4000)).toBe(0);
  }, 600_000);
});
