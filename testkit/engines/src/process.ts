import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { access, constants, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from './wait';

const execFileAsync = promisify(execFile);

const GUARD_SCRIPT = fileURLToPath(new URL('../bin/guard.sh', import.meta.url));

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface GuardedProcess {
  readonly name: string;
  /** Pid of the guard (also the process group id); the engine itself is its child. */
  readonly pid: number;
  readonly logFile: string;
  /** Set once the guard has exited. */
  exitInfo(): ExitInfo | undefined;
  /** Resolves when the guard exits, or with `undefined` after timeoutMs. */
  waitForExit(timeoutMs: number): Promise<ExitInfo | undefined>;
  /** SIGTERM (the guard forwards it), then SIGKILL to the whole group if it is still there after graceMs. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnGuardedOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** stdout and stderr of the engine are appended here; the parent's own output stays clean. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts `command` under bin/guard.sh, which kills it when this Node process disappears, including on SIGKILL
 * where no exit handler of ours would run.
 */
export function spawnGuarded(options: SpawnGuardedOptions): GuardedProcess {
  const fd = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn('bash', [GUARD_SCRIPT, String(process.pid), '--', options.command, ...options.args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', fd, fd],
      // Own process group: a Ctrl-C in the terminal reaches only the Node parent, which then stops the engines
      // in order, and a last-resort SIGKILL can take the guard and the engine down together.
      detached: true,
    });
  } finally {
    closeSync(fd);
  }

  let exit: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
    child.once('error', () => {
      // spawn failures (no bash) never emit 'exit'
      exit ??= { code: null, signal: null };
      resolve(exit);
    });
  });
  const pid = child.pid ?? -1;

  const waitForExit = async (timeoutMs: number): Promise<ExitInfo | undefined> => {
    if (exit) return exit;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    name: options.name,
    pid,
    logFile: options.logFile,
    exitInfo: () => exit,
    waitForExit,
    async stop(graceMs = 30_000) {
      if (pid < 0) return;
      if (!exit) {
        signal(pid, 'SIGTERM');
        await waitForExit(graceMs);
      }
      // A guard that exits normally has waited for its command. One that was killed (by us just now, or by
      // someone else earlier) may have left the command running in its group, so take the group down.
      if (exit && exit.signal === null) return;
      signal(-pid, 'SIGKILL');
      if (!(await waitForExit(5_000))) throw new Error(`${options.name} (pid ${pid}) did not exit after SIGKILL`);
    },
  };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs a program to completion; on failure the error carries the tail of its output, which is the useful part. */
export async function run(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 0,
      maxBuffer: 64 * 1024 * 1024,
      encoding: 'utf8',
    });
    return { stdout, stderr };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string; killed?: boolean };
    const output = `${e.stdout ?? ''}\n${e.stderr ?? ''}`.trim();
    const what = e.killed ? `timed out after ${options.timeoutMs} ms` : e.message.split('\n')[0];
    throw new Error(`${command} ${args.join(' ')} failed: ${what}${output ? `\n${lastLines(output, 30)}` : ''}`, {
      cause: error,
    });
  }
}

/** Finds an executable on PATH the way a shell would, without running anything. */
export async function which(command: string, pathEnv = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

async function tailFile(file: string, count = 20): Promise<string> {
  try {
    return lastLines(await readFile(file, 'utf8'), count);
  } catch {
    return '';
  }
}

/** A port for a process to bind later: see freePorts. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

/** The kernel's range for the local ports of outgoing connections (and for bind to port 0). */
export function ephemeralPortRange(
  read: () => string = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'),
): { low: number; high: number } {
  try {
    const [low, high] = read().trim().split(/\s+/).map(Number) as [number, number];
    if (Number.isInteger(low) && Number.isInteger(high) && low > 0 && high >= low) return { low, high };
  } catch {
    // Not Linux: the IANA dynamic range, which other systems use.
  }
  return { low: 49152, high: 65535 };
}

/**
 * Distinct free ports for processes that bind them later, some of them again after a restart (a service, a
 * broker, a database). Chosen below the kernel's ephemeral range: a port that bind to port 0 hands out comes
 * from that range, and once released, any outgoing connection on the machine can be given it as its local port
 * before its process binds it (seen: a test stack's listen failed with "Address already in use", and a broker's
 * restart did while a rollout beside it opened connections by the thousand). Ports below the range are never
 * handed out by the kernel, so only another explicit choice could take one, and each is tried before it is
 * returned.
 */
export async function freePorts(count: number, random: () => number = Math.random): Promise<number[]> {
  const { low } = ephemeralPortRange();
  const floor = 10_000;
  if (low - floor < 1_000) return kernelChosenPorts(count);
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let tries = 0; ports.length < count; tries++) {
      if (tries > 200) throw new Error(`no ${count} free ports found between ${floor} and ${low - 1}`);
      const port = floor + Math.floor(random() * (low - floor));
      if (ports.includes(port)) continue;
      const server = createServer();
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (!bound) continue;
      servers.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await closeAll(servers);
  }
}

/** Where the ephemeral range leaves no room below it: ports the kernel picks, all held together so they differ. */
async function kernelChosenPorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('unexpected server address');
      ports.push(address.port);
    }
    return ports;
  } finally {
    await closeAll(servers);
  }
}

async function closeAll(servers: readonly Server[]): Promise<void> {
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
}

export interface RestartableEngineOptions {
  spawn: SpawnGuardedOptions;
  /** Short name for the early-exit message, e.g. "Kafka". */
  name: string;
  /** Names the engine and its address in the readiness failure, e.g. "Apache Kafka 4.3.1 at 127.0.0.1:9092". */
  label: string;
  /** What the readiness wait is for, and the probe that says it is reached. */
  readiness: string;
  probe: () => Promise<true>;
  deadlineMs: number;
  intervalMs: number;
  /** Logs whose tails explain a failed start. */
  logFiles: string[];
}

/**
 * An engine process that can be stopped and started again with the same command line (same ports and data),
 * ready only once `probe` says so. A start that fails stops the process and throws with the logs' tails.
 */
export function restartableEngine(options: RestartableEngineOptions): {
  // Properties, not methods: callers hand them on as functions (no `this` inside).
  start: () => Promise<void>;
  stop: () => Promise<void>;
  kill: () => Promise<void>;
  signal: (sig: 'SIGSTOP' | 'SIGCONT') => void;
} {
  let current: GuardedProcess | undefined;
  return {
    /** SIGKILL to the whole group (a crash: no shutdown hook, no controlled shutdown); start() brings it back. */
    async kill() {
      const proc = current;
      if (!proc || proc.exitInfo()) return;
      signal(-proc.pid, 'SIGKILL');
      if (!(await proc.waitForExit(10_000)))
        throw new Error(`${options.name} (pid ${proc.pid}) did not exit after SIGKILL`);
    },
    /** SIGSTOP / SIGCONT to the engine's process group: an engine that stalls with its connections open, then wakes. */
    signal(sig) {
      if (!current || current.exitInfo()) throw new Error(`${options.name} is not running`);
      signal(-current.pid, sig);
    },
    async start() {
      if (current && !current.exitInfo()) return;
      const proc = spawnGuarded(options.spawn);
      current = proc;
      try {
        await waitFor(options.readiness, options.probe, {
          deadlineMs: options.deadlineMs,
          intervalMs: options.intervalMs,
          abortIf: () => {
            const exit = proc.exitInfo();
            if (exit)
              throw new Error(`${options.name} exited during startup (code ${exit.code}, signal ${exit.signal})`);
          },
        });
      } catch (error) {
        await proc.stop();
        const logs = (await Promise.all(options.logFiles.map((file) => tailFile(file)))).filter(Boolean).join('\n');
        throw new Error(
          `${options.label} did not become ready: ${(error as Error).message}${logs ? `\n${logs}` : ''}`,
          { cause: error },
        );
      }
    },
    async stop() {
      await current?.stop();
    },
  };
}
