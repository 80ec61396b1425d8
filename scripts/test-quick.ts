// `npm run test:quick`: the loop for every change, in about two minutes. What changed (the working tree against
// HEAD, or HEAD's own commit when the tree is clean) decides the work: the typecheck (the whole tree, one program),
// the format check and ESLint on the changed files, the unused-code check (the whole tree, a few seconds), the whole
// unit tier, side by side; then the integration files of the changed packages, on engines started meanwhile.
// `npm test` still runs everything before a change lands.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { run } from './lib/run-command';
import { ensureChromium, sharedEngines } from './lib/test-engines';

const log = (line: string) => process.stderr.write(`[test:quick] ${line}\n`);

/** A step of the loop: `run` with the name the closing line gives it if it fails. */
async function step(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return { label, code: await run(command, args, { env }) };
}

const git = (...args: string[]) =>
  execFileSync('git', args, { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** The files this change touches, still present: uncommitted and untracked ones, or else the last commit's. */
function changedFiles(): string[] {
  const uncommitted = [...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')];
  const files = uncommitted.length > 0 ? uncommitted : git('diff', '--name-only', 'HEAD~1', 'HEAD');
  return [...new Set(files)].filter((file) => existsSync(file));
}

/** The workspace a file belongs to (libs/kafka, services/orders, test-e2e, ...), or '.' for the root's own files. */
function workspaceOf(file: string): string {
  const [top, name] = file.split('/');
  if ((top === 'libs' || top === 'services' || top === 'testkit') && name && existsSync(`${top}/${name}/package.json`))
    return `${top}/${name}`;
  if (top === 'test-e2e' || top === 'bench' || top === 'deploy') return top;
  return '.';
}

async function main(): Promise<number> {
  const started = Date.now();
  const files = changedFiles();
  if (files.length === 0) {
    log('nothing changed: nothing to check');
    return 0;
  }
  const workspaces = [...new Set(files.map(workspaceOf))].sort();
  log(`${files.length} changed file(s) in ${workspaces.join(', ')}`);

  const lintable = files.filter((file) => /\.(ts|js|mjs|cjs)$/.test(file));
  const integrationDirs = workspaces
    .map((workspace) => (workspace === 'deploy' ? 'deploy/test' : `${workspace}/test`))
    .filter((dir) => dir !== './test' && existsSync(dir));

  // Engines start while the checks run: the JVMs take most of their start-up waiting on the disk.
  const engines = integrationDirs.length > 0 ? sharedEngines(log) : undefined;
  // A failed start must not become an unhandled rejection while the checks still run.
  engines?.catch(() => {});
  // The whole tree in one program (about 20 s): a change to a library is checked against every package using it.
  const typecheck = () => step('typecheck', 'npm', ['run', '--silent', 'typecheck']);
  const lint = async () => {
    const format = await step('format', 'npx', [
      'prettier',
      '--check',
      '--log-level',
      'warn',
      '--ignore-unknown',
      ...files,
    ]);
    if (format.code !== 0 || lintable.length === 0) return format;
    return step('lint', 'npx', ['eslint', '--max-warnings', '0', '--no-warn-ignored', ...lintable]);
  };
  // Whole-tree too: a change that removes a file's last import of an export shows up in the file it did not touch.
  const knip = () => step('unused code (npm run knip)', 'npm', ['run', '--silent', 'knip']);
  const checks = await Promise.all([
    typecheck(),
    lint(),
    knip(),
    step('unit tier', 'npx', ['vitest', 'run', '--project', 'unit']),
  ]);
  const failed = checks.filter((check) => check.code !== 0);

  let integration = { label: 'integration', code: 0 };
  if (engines) {
    if (failed.length === 0) await ensureChromium(log);
    const running = await engines;
    try {
      if (failed.length === 0)
        integration = await step(
          `integration (${integrationDirs.join(', ')})`,
          'npx',
          ['vitest', 'run', '--project', 'integration', ...integrationDirs],
          running.env,
        );
    } finally {
      await running.stop();
    }
  }
  const total = (Date.now() - started) / 1000;
  const failing = [...failed, ...(integration.code === 0 ? [] : [integration])];
  log(
    `${failing.length === 0 ? 'passed' : `FAILED: ${failing.map((f) => f.label).join(', ')}`} in ${total.toFixed(0)} s` +
      (integrationDirs.length === 0 ? ' (no integration files for these packages)' : ''),
  );
  return failing.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
