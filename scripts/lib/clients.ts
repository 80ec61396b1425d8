// Merchants outside TypeScript generate clients from GET /v0/openapi.json. This generates one in
// Python (openapi-python-client) and one in Go (oapi-codegen), each with zero warnings, and runs a merchant's
// journey with each against a running gateway. The journeys are committed (test-e2e/clients/); the generated code
// is not: it is written into a working directory on every run.
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureGoTool, ensureVenv, runTool } from './tool-cache';

/** Pinned, as merchants would pin theirs: a newer generator may read the document differently. */
const OPENAPI_PYTHON_CLIENT_VERSION = '0.29.1';
const OAPI_CODEGEN_VERSION = 'v2.8.2';

const JOURNEYS = resolve(import.meta.dirname, '..', '..', 'test-e2e', 'clients');

export interface ClientResult {
  language: 'python' | 'go';
  generator: string;
  /** Lines the generator printed that warn about the document (anything it could not turn into code). */
  warnings: string[];
  /** Operations the generated client can call, of the document's. */
  operations: number;
  models: number;
  journeyPassed: boolean;
  journeyOutput: string;
}

export interface GenerateOptions {
  gatewayUrl: string;
  testKey: string;
  workDir: string;
  log: (line: string) => void;
}

/** The document's operations, and the document saved where the generators read it. */
async function fetchDocument(gatewayUrl: string, workDir: string): Promise<{ path: string; operations: number }> {
  const response = await fetch(`${gatewayUrl}/v0/openapi.json`);
  if (!response.ok) throw new Error(`GET /v0/openapi.json answered ${response.status}`);
  const text = await response.text();
  const document = JSON.parse(text) as { paths: Record<string, Record<string, unknown>> };
  const path = join(workDir, 'openapi.json');
  writeFileSync(path, text);
  const operations = Object.values(document.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
  return { path, operations };
}

const journeyEnv = (options: GenerateOptions) => ({
  ...process.env,
  CHECKOUT_API_URL: options.gatewayUrl,
  CHECKOUT_API_KEY: options.testKey,
});

async function python(options: GenerateOptions, documentPath: string): Promise<ClientResult> {
  const venvPython = await ensureVenv({
    name: `openapi-python-client-${OPENAPI_PYTHON_CLIENT_VERSION}`,
    packages: [`openapi-python-client==${OPENAPI_PYTHON_CLIENT_VERSION}`],
    check: { module: 'openapi_python_client', args: ['--version'], expect: OPENAPI_PYTHON_CLIENT_VERSION },
    log: options.log,
  });
  const out = join(options.workDir, 'python');
  const config = join(options.workDir, 'openapi-python-client.yaml');
  // No post hooks: they would run ruff, which a merchant may not have; the generated code is what we check.
  writeFileSync(
    config,
    'post_hooks: []\nproject_name_override: checkout-client\npackage_name_override: checkout_client\n',
  );
  const generated = await runTool(
    venvPython,
    [
      '-m',
      'openapi_python_client',
      'generate',
      '--path',
      documentPath,
      '--output-path',
      out,
      '--overwrite',
      '--config',
      config,
    ],
    { log: options.log, quiet: true },
  );
  const output = `${generated.stdout}\n${generated.stderr}`;
  if (generated.code !== 0) throw new Error(`openapi-python-client failed (exit ${generated.code}):\n${output}`);
  const warnings = output
    .split('\n')
    .filter((line) => /warning|unable to|could not|skipping|omitted|not be generated/i.test(line));
  const api = join(out, 'checkout_client', 'api');
  const operations = readdirSync(api, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .reduce(
      (sum, tag) =>
        sum + readdirSync(join(api, tag.name)).filter((file) => file.endsWith('.py') && file !== '__init__.py').length,
      0,
    );
  const models = readdirSync(join(out, 'checkout_client', 'models')).filter(
    (file) => file.endsWith('.py') && file !== '__init__.py',
  ).length;
  const journey = await runTool(venvPython, [join(JOURNEYS, 'python', 'journey.py')], {
    log: options.log,
    quiet: true,
    env: { ...journeyEnv(options), PYTHONPATH: out },
  });
  return {
    language: 'python',
    generator: `openapi-python-client ${OPENAPI_PYTHON_CLIENT_VERSION}`,
    warnings,
    operations,
    models,
    journeyPassed: journey.code === 0,
    journeyOutput: `${journey.stdout}${journey.stderr}`,
  };
}

async function go(options: GenerateOptions, documentPath: string): Promise<ClientResult> {
  const codegen = await ensureGoTool({
    name: 'oapi-codegen',
    module: 'github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen',
    version: OAPI_CODEGEN_VERSION,
    binary: 'oapi-codegen',
    log: options.log,
  });
  // A working copy of the committed journey module (go.mod, go.sum, journey_test.go) with the client beside it.
  const module = join(options.workDir, 'go');
  mkdirSync(module, { recursive: true });
  cpSync(join(JOURNEYS, 'go'), module, { recursive: true });
  const generatedFile = join(module, 'client.gen.go');
  const generated = await runTool(
    codegen,
    ['-generate', 'types,client', '-package', 'checkout', '-o', generatedFile, documentPath],
    { log: options.log, quiet: true },
  );
  if (generated.code !== 0)
    throw new Error(`oapi-codegen failed (exit ${generated.code}):\n${generated.stdout}${generated.stderr}`);
  // oapi-codegen writes the code to the file and nothing else when all is well: any output is a warning.
  const warnings = `${generated.stdout}${generated.stderr}`.split('\n').filter((line) => line.trim() !== '');
  const vet = await runTool('go', ['vet', './...'], { log: options.log, quiet: true, cwd: module });
  if (vet.code !== 0) warnings.push(...`${vet.stdout}${vet.stderr}`.split('\n').filter((line) => line.trim() !== ''));
  const source = readFileSync(generatedFile, 'utf8');
  const operations = [...source.matchAll(/^func \(c \*ClientWithResponses\) (\w+)WithResponse\(/gm)].filter(
    (m) => !m[1]?.endsWith('WithBody'),
  ).length;
  const models = [...source.matchAll(/^\/\/ (\w+) defines model for /gm)].length;
  const journey = await runTool('go', ['test', '-count=1', '-v', './...'], {
    log: options.log,
    quiet: true,
    cwd: module,
    env: journeyEnv(options),
  });
  return {
    language: 'go',
    generator: `oapi-codegen ${OAPI_CODEGEN_VERSION}`,
    warnings,
    operations,
    models,
    journeyPassed: journey.code === 0,
    journeyOutput: `${journey.stdout}${journey.stderr}`,
  };
}

/** Generates both clients and runs both journeys; returns what each did, for the caller to judge and print. */
export async function generateAndRunClients(
  options: GenerateOptions,
): Promise<{ documentOperations: number; results: ClientResult[] }> {
  mkdirSync(options.workDir, { recursive: true });
  const document = await fetchDocument(options.gatewayUrl, options.workDir);
  const results = [await python(options, document.path), await go(options, document.path)];
  return { documentOperations: document.operations, results };
}

/** One line per client, the form `npm run clients` prints and its test reads. */
export function formatClientResult(result: ClientResult, documentOperations: number): string {
  return `${result.language}: ${result.generator}, warnings ${result.warnings.length}, operations ${result.operations}/${documentOperations}, models ${result.models}, journey ${result.journeyPassed ? 'passed' : 'FAILED'}`;
}
