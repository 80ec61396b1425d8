// Schemathesis (PyPI) in a virtual environment of its own, cached outside the checkout like the engines and
// keyed by version, so every worktree and clean clone reuses one install and an upgrade never runs a stale one.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCached } from '@checkout/engines';

/** Pinned: a newer Schemathesis brings new checks and generators, and a fuzz run must be reproducible. */
export const SCHEMATHESIS_VERSION = '4.32.5';

export function toolsCacheRoot(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || '/tmp', '.cache');
  return join(base, 'checkout-tools');
}

function run(command: string, args: string[], options: { log: (line: string) => void; capture?: boolean }): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (options.capture) stdout += chunk.toString();
      else options.log(chunk.toString().trimEnd());
    });
    child.stderr.on('data', (chunk: Buffer) => options.log(chunk.toString().trimEnd()));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), stdout }));
  });
}

/**
 * Returns the venv's python, installing `schemathesis==SCHEMATHESIS_VERSION` on first use. The venv is built in
 * a temporary directory and renamed into place (ensureCached's lock and rename), and always run as
 * `<venv>/bin/python -m schemathesis.cli`, which, unlike the console scripts, survives the rename.
 */
export async function ensureSchemathesis(log: (line: string) => void, python = process.env.PYTHON ?? 'python3'): Promise<string> {
  const dir = join(toolsCacheRoot(), `schemathesis-${SCHEMATHESIS_VERSION}`);
  const pythonIn = (venv: string) => join(venv, 'bin', 'python');
  const isComplete = async (venv: string) => {
    if (!existsSync(pythonIn(venv))) return false;
    const { code, stdout } = await run(pythonIn(venv), ['-m', 'schemathesis.cli', '--version'], { log: () => {}, capture: true });
    return code === 0 && stdout.includes(SCHEMATHESIS_VERSION);
  };
  const { built } = await ensureCached({
    dir,
    isComplete,
    log,
    build: async (tmp) => {
      log(`installing schemathesis ${SCHEMATHESIS_VERSION} into ${dir} (first run only)`);
      const venv = await run(python, ['-m', 'venv', tmp], { log });
      if (venv.code !== 0) throw new Error(`${python} -m venv failed; install Python 3.9+ with the venv module`);
      const pip = await run(pythonIn(tmp), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], { log });
      if (pip.code !== 0) throw new Error(`pip install schemathesis==${SCHEMATHESIS_VERSION} failed`);
    },
  });
  if (built) log(`schemathesis ${SCHEMATHESIS_VERSION} installed`);
  return pythonIn(dir);
}
