// Schemathesis (PyPI) in a virtual environment of its own, cached outside the checkout (scripts/lib/tool-cache.ts).
import { ensureVenv } from './tool-cache';

/** Pinned: a newer Schemathesis brings new checks and generators, and a fuzz run must be reproducible. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/** Returns the venv's python; run Schemathesis as `<python> -m schemathesis.cli`. */
export async function ensureSchemathesis(
  log: (line: string) => void,
  python = process.env.PYTHON ?? 'python3',
): Promise<string> {
  return ensureVenv({
    name: `schemathesis-${SCHEMATHESIS_VERSION}`,
    packages: [`schemathesis==${SCHEMATHESIS_VERSION}`],
    check: { module: 'schemathesis.cli', args: ['--version'], expect: SCHEMATHESIS_VERSION },
    log,
    python,
  });
}
