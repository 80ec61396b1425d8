import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A service as a real process (`services/<service>/src/main.ts` under tsx, from the repository's root), for tests
 * that SIGKILL it; resolves once `readyUrl` answers 200. A failed start is explained only in its logs, so the tail
 * of both streams goes into the error. Each process is in `children` while it runs, for the file's cleanup.
 */
export async function startServiceProcess(options: {
  service: string;
  env: Record<string, string>;
  readyUrl: string;
  children: Set<ChildProcess>;
}): Promise<ChildProcess> {
  const { service, env, readyUrl, children } = options;
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${service}/src/main.ts`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  children.add(child);
  child.once('exit', () => children.delete(child));
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}:\n${output}`);
      return (await fetch(readyUrl)).status === 200;
    },
    { deadlineMs: 60_000, intervalMs: 100, description: `the ${service} child to be ready` },
  );
  return child;
}

/** SIGKILLs the process and resolves once it has exited. */
export async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
