// `npm run fuzz`: Schemathesis against a stack of its own, from the generated OpenAPI document, with every
// check, every phase this version has (examples, coverage, fuzzing, stateful), once with a test key and once
// with a live key. Prints operations covered, cases run and failures; exits non-zero on any failure.
//   npm run fuzz                                    the full run (default 100 examples per operation)
//   npm run fuzz -- --max-examples 10 --seed 7      shorter, reproducible (what the e2e test runs)
// Engines come from KAFKA_BROKERS / MONGODB_URL when set (as in `npm test`), else are started and cached.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEngines, type Engines } from '@checkout/engines';
import { AdminClient } from '@checkout/testing';
import { startProcessStack, type ProcessStack } from './lib/process-stack';
import { SCHEMATHESIS_VERSION, ensureSchemathesis } from './lib/schemathesis';

const log = (line: string) => process.stderr.write(`[fuzz] ${line}\n`);
const HOOKS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'fuzz');

const { values: options } = parseArgs({
  options: {
    'max-examples': { type: 'string', default: '100' },
    seed: { type: 'string', default: '20261123' },
    phases: { type: 'string', default: 'examples,coverage,fuzzing,stateful' },
    'request-timeout': { type: 'string', default: '10' },
    workers: { type: 'string', default: '1' },
    'report-dir': { type: 'string' },
  },
});

export interface FuzzSummary {
  key: 'test' | 'live';
  operations: number;
  operationsTotal: number;
  cases: number;
  failures: number;
  errors: number;
  exitCode: number;
}

/** Reads a JUnit report: one <testcase> per operation, failures and errors inside. */
export function summarizeJunit(xml: string): { operations: number; failures: number; errors: number } {
  const testcases = xml.match(/<testcase\b/g)?.length ?? 0;
  const failures = xml.match(/<failure\b/g)?.length ?? 0;
  const errors = xml.match(/<error\b/g)?.length ?? 0;
  return { operations: testcases, failures, errors };
}

function runSchemathesis(python: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    // Our hooks (scripts/fuzz/checkout_hooks.py) register positive_data_acceptance_beyond_schema and
    // ensure_resource_availability_beyond_replay.
    const env = { ...process.env, NO_COLOR: '1', PYTHONPATH: HOOKS_DIR, SCHEMATHESIS_HOOKS: 'checkout_hooks' };
    // cwd: Schemathesis keeps a .schemathesis/ directory where it runs; not in the checkout.
    const child = spawn(python, ['-m', 'schemathesis.cli', 'run', ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

/** "Test cases:" line of the CLI summary, e.g. "1234 generated, 1234 passed". */
function casesFrom(output: string): number {
  const match = /Test cases:\s*([0-9,]+) generated/i.exec(output) ?? /([0-9,]+) generated/i.exec(output);
  return match?.[1] ? Number(match[1].replace(/,/g, '')) : 0;
}

function operationsFrom(output: string): { selected: number; total: number } {
  const match = /Operations:\s*([0-9]+) selected \/ ([0-9]+) total/i.exec(output);
  return match ? { selected: Number(match[1]), total: Number(match[2]) } : { selected: 0, total: 0 };
}

async function main(): Promise<number> {
  const python = await ensureSchemathesis(log);
  const engines = await startEngines({ log: (line) => log(`engines: ${line}`) });
  const runId = randomBytes(4).toString('hex');
  const workDir = options['report-dir'] ?? join(tmpdir(), `checkout-fuzz-${runId}`);
  mkdirSync(workDir, { recursive: true });
  let stack: ProcessStack | undefined;
  try {
    stack = await startFuzzStack(engines, runId, workDir);
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const organization = await admin.createOrganizationWithKeys('Fuzz Org');
    log(`stack ready at ${stack.env.gatewayUrl}; service logs in ${join(workDir, 'logs')}`);

    const summaries: FuzzSummary[] = [];
    for (const [key, secret] of [
      ['test', organization.testKey],
      ['live', organization.liveKey],
    ] as const) {
      summaries.push(await fuzzWithKey({ python, gatewayUrl: stack.env.gatewayUrl, key, secret, workDir }));
    }
    return printSummaries(summaries);
  } finally {
    await stack?.stop();
    await engines.stop();
  }
}

function startFuzzStack(engines: Engines, runId: string, workDir: string): Promise<ProcessStack> {
  return startProcessStack({
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: `fuzz_${runId}`,
    logLevel: 'warn',
    logDir: join(workDir, 'logs'),
    webhookRetryDelaysMs: '200,400,800,1600',
    // The fuzzer is one client sending as fast as the stack answers; the rate limit has its own tests.
    extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '100000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' } },
  });
}

interface KeyRun {
  python: string;
  gatewayUrl: string;
  key: FuzzSummary['key'];
  secret: string;
  /** Schemathesis runs here; each key's JUnit report goes to its own directory inside. */
  workDir: string;
}

/** One Schemathesis run as a merchant with that key, summarized from its CLI output and JUnit report. */
async function fuzzWithKey({ python, gatewayUrl, key, secret, workDir }: KeyRun): Promise<FuzzSummary> {
  const reportDir = join(workDir, key);
  const args = schemathesisArgs(gatewayUrl, secret, reportDir);
  log(
    `schemathesis ${SCHEMATHESIS_VERSION}, ${key} key: st run ${args.filter((a) => !a.startsWith('Authorization')).join(' ')}`,
  );
  const { code, output } = await runSchemathesis(python, args, workDir);
  const junitFile = readdirSync(reportDir).find((name) => name.endsWith('.xml'));
  const junit = junitFile
    ? summarizeJunit(readFileSync(join(reportDir, junitFile), 'utf8'))
    : { operations: 0, failures: 0, errors: 0 };
  const operations = operationsFrom(output);
  return {
    key,
    operations: operations.selected || junit.operations,
    operationsTotal: operations.total || junit.operations,
    cases: casesFrom(output),
    failures: junit.failures,
    errors: junit.errors,
    exitCode: code,
  };
}

function schemathesisArgs(gatewayUrl: string, secret: string, reportDir: string): string[] {
  return [
    `${gatewayUrl}/v0/openapi.json`,
    // Every check; positive_data_acceptance as our variant that lets through only the 400s of rules JSON
    // Schema cannot state (cross-field amounts, state, references: each listed in the hooks file), and
    // ensure_resource_availability as ours that knows a replayed create (D42) may name a deleted resource.
    '--checks',
    'all',
    '--exclude-checks',
    'positive_data_acceptance,ensure_resource_availability',
    '--phases',
    options.phases,
    '--max-examples',
    options['max-examples'],
    '--seed',
    options.seed,
    '--workers',
    options.workers,
    '--request-timeout',
    options['request-timeout'],
    '--header',
    `Authorization: Bearer ${secret}`,
    '--report',
    'junit',
    '--report-dir',
    reportDir,
    '--generation-database',
    'none',
    '--no-color',
    '--output-sanitize',
    'true',
  ];
}

/** Prints the summary lines; answers the exit code: 1 when either key's run failed or ran no case. */
function printSummaries(summaries: FuzzSummary[]): number {
  const failed = summaries.some((s) => s.exitCode !== 0 || s.failures > 0 || s.errors > 0 || s.cases === 0);
  console.log(
    `\nFuzz summary (schemathesis ${SCHEMATHESIS_VERSION}, seed ${options.seed}, ${options['max-examples']} examples per operation, phases ${options.phases})`,
  );
  for (const s of summaries) {
    console.log(
      `  ${s.key} key: operations covered ${s.operations}/${s.operationsTotal}, cases run ${s.cases}, failures ${s.failures}, errors ${s.errors}, exit ${s.exitCode}`,
    );
  }
  const total = summaries.reduce(
    (sum, s) => ({ cases: sum.cases + s.cases, failures: sum.failures + s.failures + s.errors }),
    { cases: 0, failures: 0 },
  );
  console.log(`FUZZ RESULT: cases ${total.cases}, failures ${total.failures}, ${failed ? 'FAILED' : 'passed'}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
