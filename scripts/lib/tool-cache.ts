// Tools that commands need (Schemathesis, client generators), installed from the package registries into
// directories of their own under ~/.cache/checkout-tools/, keyed by version, so every worktree and clean clone
// reuses one install and an upgrade never runs a stale one. Nothing is installed into the checkout.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCached } from '@checkout/engines';

/** `~/.cache/<name>` (or under XDG_CACHE_HOME): where what commands build is kept outside the checkout. */
export function userCacheDir(name: string, env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || '/tmp', '.cache');
  return join(base, name);
}

export function toolsCacheRoot(env: Record<string, string | undefined> = process.env): string {
  return userCacheDir('checkout-tools', env);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; `log` gets its output as it comes unless `quiet`. */
export function runTool(
  command: string,
  args: string[],
  options: { log: (line: string) => void; quiet?: boolean; cwd?: string; env?: NodeJS.ProcessEnv } = { log: () => {} },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: options.cwd,
      env: options.env ?? process.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!options.quiet) options.log(chunk.toString().trimEnd());
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!options.quiet) options.log(chunk.toString().trimEnd());
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), stdout, stderr }));
  });
}

/**
 * A Python virtual environment holding `packages` (pinned `name==version` specifiers), built on first use in a
 * temporary directory and renamed into place (ensureCached's lock and rename). Returns the venv's python; run
 * its tools as `python -m <module>`, which, unlike console scripts, survives the rename.
 */
export async function ensureVenv(options: {
  name: string;
  packages: readonly string[];
  /** `python -m <module> <args>` must exit 0 with `expect` in its output for the venv to count as complete. */
  check: { module: string; args: string[]; expect: string };
  log: (line: string) => void;
  python?: string;
}): Promise<string> {
  const dir = join(toolsCacheRoot(), options.name);
  const pythonIn = (venv: string) => join(venv, 'bin', 'python');
  const python = options.python ?? process.env.PYTHON ?? 'python3';
  const isComplete = async (venv: string) => {
    if (!existsSync(pythonIn(venv))) return false;
    const { code, stdout, stderr } = await runTool(
      pythonIn(venv),
      ['-m', options.check.module, ...options.check.args],
      { log: () => {}, quiet: true },
    );
    return code === 0 && `${stdout}${stderr}`.includes(options.check.expect);
  };
  const { built } = await ensureCached({
    dir,
    isComplete,
    log: options.log,
    build: async (tmp) => {
      options.log(`installing ${options.packages.join(' ')} into ${dir} (first run only)`);
      const venv = await runTool(python, ['-m', 'venv', tmp], { log: options.log });
      if (venv.code !== 0) throw new Error(`${python} -m venv failed; install Python 3.9+ with the venv module`);
      const pip = await runTool(
        pythonIn(tmp),
        ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...options.packages],
        { log: options.log },
      );
      if (pip.code !== 0) throw new Error(`pip install ${options.packages.join(' ')} failed`);
    },
  });
  if (built) options.log(`${options.packages.join(' ')} installed`);
  return pythonIn(dir);
}

/** A Go command (`go install <module>@<version>` through the Go module proxy) in a bin directory of its own. */
export async function ensureGoTool(options: {
  name: string;
  module: string;
  version: string;
  binary: string;
  log: (line: string) => void;
}): Promise<string> {
  const dir = join(toolsCacheRoot(), `${options.name}-${options.version}`);
  const binaryIn = (root: string) => join(root, 'bin', options.binary);
  await ensureCached({
    dir,
    isComplete: async (root) => existsSync(binaryIn(root)),
    log: options.log,
    build: async (tmp) => {
      options.log(`installing ${options.module}@${options.version} into ${dir} (first run only)`);
      const install = await runTool('go', ['install', `${options.module}@${options.version}`], {
        log: options.log,
        env: { ...process.env, GOBIN: join(tmp, 'bin'), GOFLAGS: '-mod=mod' },
      });
      if (install.code !== 0)
        throw new Error(`go install ${options.module}@${options.version} failed (is Go 1.22+ on the PATH?)`);
    },
  });
  return binaryIn(dir);
}
