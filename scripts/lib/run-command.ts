import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

// The commands `npm test` and `npm run test:quick` run one after another or side by side.

/** Runs a command; its output goes to this terminal, or to `logFile` (printed by the caller when it matters). */
export function run(
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
