// `npm test`: the checks (typecheck, format, lint, audit) and every test tier, on real engines.
//   npm test                      everything, in two lanes side by side (below)
//   npm test -- --project e2e     one tier (any vitest arguments pass through), one vitest process
// The whole run keeps both cores busy: the checks and the unit tier run while the engines start; then the tiers on
// the shared engines (chaos, then integration and e2e) in one lane, and the tiers with engines and stacks of their own
// (soak, rollout), which mostly wait on their load and their replicas, in the other. It ends with each tier's
// wall time, the ten slowest files and one closing line of counts (scripts/lib/test-cost.ts).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngines, type Engines } from '@checkout/engines';
import { serveEngineControl } from '@checkout/testing';
import { runAudit } from './lib/audit';
import { costSummary, readCosts } from './lib/test-cost';

/** The reporter that records each test file's wall time and outcome (scripts/lib/test-cost.ts). */
const COST_REPORTER = './scripts/lib/test-cost.ts';
/**
 * The tiers that share this run's engines, in order: chaos first, alone on them (it restarts and stalls their
 * broker) while the other lane runs its lightest tier, the soak; its three-broker test and the rollouts' two
 * three-broker clusters together would starve each other. Then those that start engines and stacks of their own.
 */
const SHARED_ENGINE_TIERS = [['chaos'], ['integration', 'e2e']];
const OWN_ENGINE_TIERS = ['soak', 'rollout'];

const args = process.argv.slice(2);
const log = (line: string) => process.stderr.write(`[test] ${line}\n`);
const costDir = mkdtempSync(join(tmpdir(), 'test-cost-'));

/** Runs a command; its output goes to this terminal, or to `logFile` (printed by the caller when it matters). */
function run(
  command: string,
  commandArgs: string[],
  options: { env?: NodeJS.ProcessEnv; logFile?: string } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, {
      stdio: options.logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: options.env ?? process.env,
    });
    if (options.logFile) {
      const out = createWriteStream(options.logFile);
      child.stdout?.pipe(out);
      child.stderr?.pipe(out);
    }
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** A vitest run of `vitestArgs` whose per-file costs land in its own file of costDir. */
function vitest(name: string, vitestArgs: string[], options: { env?: NodeJS.ProcessEnv; logFile?: string } = {}) {
  const env = { ...(options.env ?? process.env), TEST_COST_FILE: join(costDir, `${name}.json`) };
  return run('npx', ['vitest', 'run', '--reporter=default', `--reporter=${COST_REPORTER}`, ...vitestArgs], {
    ...options,
    env,
  });
}

/** The checks before any test may count: the first that fails ends the lane. */
async function checks(): Promise<number> {
  const steps: Array<[string, () => Promise<number>]> = [
    ['typecheck (npm run typecheck)', () => run('npm', ['run', '--silent', 'typecheck'])],
    ['format (npm run format:check; `npm run format` rewrites)', () => run('npm', ['run', '--silent', 'format:check'])],
    [
      'lint (npm run lint: import cycles, then ESLint with the layering rules of docs/engineering.md)',
      () => run('npm', ['run', '--silent', 'lint']),
    ],
    // Known vulnerabilities in what the images run, against the documented allow-list.
    ['audit', () => runAudit(process.cwd(), log)],
  ];
  for (const [what, step] of steps) {
    log(what);
    const code = await step();
    if (code !== 0) {
      log(`${what.split(' ')[0] ?? what} failed`);
      return code;
    }
  }
  return 0;
}

/** This run's shared engines (or the ones KAFKA_BROKERS / MONGODB_URL name) and the env that hands them down. */
async function sharedEngines(): Promise<{ env: NodeJS.ProcessEnv; stop(): Promise<void> }> {
  const env = { ...process.env };
  if (env.KAFKA_BROKERS && env.MONGODB_URL) {
    log(`engines: ${env.ENGINES_DESCRIPTION ?? `${env.KAFKA_BROKERS} / ${env.MONGODB_URL}`}`);
    return { env, stop: async () => {} };
  }
  const engines: Engines = await startEngines({ log: (line) => log(`engines: ${line}`) });
  const control = await serveEngineControl(engines);
  log(`engines: ${engines.description}`);
  return {
    env: {
      ...env,
      KAFKA_BROKERS: engines.kafkaBrokers.join(','),
      MONGODB_URL: engines.mongoUrl,
      ENGINES_DESCRIPTION: engines.description,
      ENGINES_CONTROL_URL: control.url,
    },
    stop: async () => {
      await control.close();
      await engines.stop();
    },
  };
}

function ensureChromium(): Promise<void> {
  if (!existsSync('scripts/ensure-chromium.sh')) return Promise.resolve();
  return run('bash', ['scripts/ensure-chromium.sh']).then((code) => {
    if (code !== 0) log('chromium is not available: the hosted-page browser tests will fail');
  });
}

/** One vitest process over `args` (a tier, a file): what `npm test -- …` runs. */
async function runOne(): Promise<number> {
  await ensureChromium();
  const engines = await sharedEngines();
  try {
    return await vitest('run', args, { env: engines.env });
  } finally {
    await engines.stop();
  }
}

/** Everything, in two lanes once the checks and the unit tier have passed (see the header). */
async function runAll(): Promise<number> {
  const enginesStarting = sharedEngines();
  // A failed start must not become an unhandled rejection while the checks still run.
  enginesStarting.catch(() => {});
  const chromium = ensureChromium();
  const [checked, unit] = await Promise.all([checks(), vitest('unit', ['--project', 'unit'])]);
  await chromium;
  const engines = await enginesStarting;
  try {
    if (checked !== 0 || unit !== 0) return checked || unit;
    const ownLog = join(costDir, 'own-engines.log');
    log(
      `${SHARED_ENGINE_TIERS.flat().join(', ')} here; ${OWN_ENGINE_TIERS.join(', ')} beside them (output: ${ownLog})`,
    );
    const projects = (tiers: string[]) => tiers.flatMap((tier) => ['--project', tier]);
    const [shared, own] = await Promise.all([
      (async () => {
        for (const [i, tiers] of SHARED_ENGINE_TIERS.entries()) {
          const code = await vitest(`shared-${i}`, projects(tiers), { env: engines.env });
          if (code !== 0) return code;
        }
        return 0;
      })(),
      vitest('own', projects(OWN_ENGINE_TIERS), { logFile: ownLog }),
    ]);
    log(`the ${OWN_ENGINE_TIERS.join(' and ')} tiers' output:`);
    process.stdout.write(readFileSync(ownLog, 'utf8'));
    return shared || own;
  } finally {
    await engines.stop();
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  // Ctrl-C reaches vitest too (same process group); stay alive until it exits so the engines are stopped.
  process.on('SIGINT', () => log('interrupted: stopping'));
  process.on('SIGTERM', () => log('terminated: stopping'));
  const code = args.length === 0 ? await runAll() : await runOne();
  const runs = ['unit', ...SHARED_ENGINE_TIERS.map((_, i) => `shared-${i}`), 'own', 'run'];
  const costs = readCosts(runs.map((name) => join(costDir, `${name}.json`)));
  process.stdout.write(`${costSummary(costs)}\n`);
  log(`finished in ${((Date.now() - started) / 1000).toFixed(0)} s with exit code ${code}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
