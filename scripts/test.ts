// `npm test`: the checks (typecheck, format, lint, unused code, audit) and every test tier, on real engines.
//   npm test                      everything, side by side where the cores allow (below)
//   npm test -- --project e2e     one tier (any vitest arguments pass through), one vitest process
// The checks and the unit tier run while the engines start; then the tiers in phases (PHASES), side by side where
// neither starves the other. It ends with each tier's wall time, the ten slowest files and one closing line of
// counts (scripts/lib/test-cost.ts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAudit } from './lib/audit';
import { run } from './lib/run-command';
import { ensureChromium, sharedEngines } from './lib/test-engines';
import { costSummary, readCosts } from './lib/test-cost';

/** The reporter that records each test file's wall time and outcome (scripts/lib/test-cost.ts). */
const COST_REPORTER = './scripts/lib/test-cost.ts';
/** One vitest process: a name (its cost file and log) and its arguments (tiers, file filters). */
interface VitestRun {
  name: string;
  args: string[];
}
/** Vitest processes one after another, on this run's engines or on engines of their own. */
interface Lane {
  runs: VitestRun[];
  onSharedEngines: boolean;
}

/**
 * The rollout files short enough to follow the soak, beside the chaos tier's tail (its broker tests, which mostly
 * wait on broker restarts: 19 % of the 2 cores busy once the soak had ended). The hot-merchant test, the chaos tier's
 * first file, has ended by then; every other rollout file runs last.
 */
const ROLLOUTS_AFTER_SOAK = ['test-system/rollout/three-replicas.rollout.ts', 'test-system/rollout/edge.rollout.ts'];

/**
 * After the checks and the unit tier, one phase after another; the lanes of a phase side by side. Side by side only
 * where neither starves the other: the chaos tier (alone on the shared engines, which it restarts and stalls) beside
 * the one-minute soak and then the short rollout files (stacks and clusters of their own). The integration and e2e
 * tiers, whose deadlines assume a machine of their own, run alone; the release-day rollout after them. Beside the
 * integration and e2e tiers on a busy machine, the release-day rollout's new replicas took 20-40 s to get ready and a
 * draining orders replica ran out of its shutdown grace, with 503s and events left to the sweep; beside the
 * hot-merchant test, the three-replicas rollout took the others' webhook p99 past its bound (1,094 ms against 725).
 */
const PHASES: Lane[][] = [
  [
    { runs: [{ name: 'chaos', args: ['--project', 'chaos'] }], onSharedEngines: true },
    {
      runs: [
        { name: 'soak', args: ['--project', 'soak'] },
        { name: 'rollout-short', args: ['--project', 'rollout', ...ROLLOUTS_AFTER_SOAK] },
      ],
      onSharedEngines: false,
    },
  ],
  [{ runs: [{ name: 'shared', args: ['--project', 'integration', '--project', 'e2e'] }], onSharedEngines: true }],
  [
    {
      runs: [
        { name: 'rollout', args: ['--project', 'rollout', ...ROLLOUTS_AFTER_SOAK.flatMap((f) => ['--exclude', f])] },
      ],
      onSharedEngines: false,
    },
  ],
];

const args = process.argv.slice(2);
const log = (line: string) => process.stderr.write(`[test] ${line}\n`);
const costDir = mkdtempSync(join(tmpdir(), 'test-cost-'));

/** A vitest run of `vitestArgs` whose per-file costs land in its own file of costDir. */
function vitest(name: string, vitestArgs: string[], options: { env?: NodeJS.ProcessEnv; logFile?: string } = {}) {
  const base = options.env ?? process.env;
  // A process warning (a listener leak, a deprecation) prints where it was raised: one that shows once in a
  // run of many files cannot be traced afterwards.
  const nodeOptions = [base.NODE_OPTIONS, '--trace-warnings'].filter(Boolean).join(' ');
  const env = { ...base, NODE_OPTIONS: nodeOptions, TEST_COST_FILE: join(costDir, `${name}.json`) };
  return run('npx', ['vitest', 'run', '--reporter=default', `--reporter=${COST_REPORTER}`, ...vitestArgs], {
    ...options,
    env,
  });
}

/** The checks before any test may count: the first that fails ends them. */
async function checks(): Promise<number> {
  const steps: Array<[string, () => Promise<number>]> = [
    ['typecheck (npm run typecheck)', () => run('npm', ['run', '--silent', 'typecheck'])],
    ['format (npm run format:check; `npm run format` rewrites)', () => run('npm', ['run', '--silent', 'format:check'])],
    [
      'lint (npm run lint: import cycles, then ESLint with the layering rules of docs/engineering.md)',
      () => run('npm', ['run', '--silent', 'lint']),
    ],
    [
      'unused code (npm run knip: files, exports and dependencies nothing uses; knip.ts says what counts)',
      () => run('npm', ['run', '--silent', 'knip']),
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

/** One vitest process over `args` (a tier, a file): what `npm test -- …` runs. */
async function runOne(): Promise<number> {
  await ensureChromium(log);
  const engines = await sharedEngines(log);
  try {
    return await vitest('run', args, { env: engines.env });
  } finally {
    await engines.stop();
  }
}

/** Everything: the checks beside the unit tier and the engines' start, then the phases (see PHASES). */
async function runAll(): Promise<number> {
  const enginesStarting = sharedEngines(log);
  // A failed start must not become an unhandled rejection while the checks still run.
  enginesStarting.catch(() => {});
  const chromium = ensureChromium(log);
  const [checked, unit] = await Promise.all([checks(), vitest('unit', ['--project', 'unit'])]);
  await chromium;
  const engines = await enginesStarting;
  try {
    if (checked !== 0 || unit !== 0) return checked || unit;
    let failed = 0;
    for (const phase of PHASES) {
      // The first lane of a phase writes to this terminal, the others to files printed when the phase ends.
      const logOf = (lane: number, run: VitestRun) => (lane === 0 ? undefined : join(costDir, `${run.name}.log`));
      log(phase.map((lane) => lane.runs.map((r) => r.name).join(' then ')).join(', beside it, '));
      const laneCodes = await Promise.all(
        phase.map(async (lane, i) => {
          const env = lane.onSharedEngines ? { env: engines.env } : {};
          const codes: number[] = [];
          for (const run of lane.runs) {
            const logFile = logOf(i, run);
            codes.push(await vitest(run.name, run.args, { ...env, ...(logFile && { logFile }) }));
          }
          return codes.find((code) => code !== 0) ?? 0;
        }),
      );
      phase.forEach((lane, i) =>
        lane.runs.forEach((run) => {
          const file = logOf(i, run);
          if (file) process.stdout.write(readFileSync(file, 'utf8'));
        }),
      );
      failed ||= laneCodes.find((code) => code !== 0) ?? 0;
    }
    return failed;
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
  const runs = ['unit', ...PHASES.flat().flatMap((lane) => lane.runs.map((r) => r.name)), 'run'];
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
