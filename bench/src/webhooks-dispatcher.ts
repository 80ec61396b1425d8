// The bundled webhook dispatcher in child processes of its own (webhook-dispatcher-process.ts), run by plain node as
// the image runs it, and asked for its memory and database commands over IPC: the webhooks bench's system under test.
import { fork, type ChildProcess } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { cpuProfileFlags } from '../../scripts/lib/process-stack';

interface Stats {
  /** Peak RSS so far. */
  rss: number;
  /** At that peak: V8's heap reserved and in use, and memory held outside it (Buffers). */
  peakHeapTotal: number;
  peakHeapUsed: number;
  peakExternal: number;
  /** V8 heap in use now (after a full garbage collection when asked for it). */
  heap: number;
  commands: number;
}

let dispatcherBundle: Promise<string> | undefined;

/**
 * Bundled as deploy/scripts/bundle.ts bundles the services, and run by plain node, as the image runs it (tsx alone
 * costs ~100 MiB of RSS).
 */
async function bundleDispatcher(): Promise<string> {
  const outfile = fileURLToPath(new URL('../node_modules/.cache/webhook-dispatcher-process.mjs', import.meta.url));
  await build({
    entryPoints: [fileURLToPath(new URL('./webhook-dispatcher-process.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    logLevel: 'warning',
    plugins: [
      {
        name: 'external-third-party',
        setup: (b) =>
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            isAbsolute(args.path) || args.path.startsWith('@checkout/')
              ? undefined
              : { path: args.path, external: true },
          ),
      },
    ],
  });
  return outfile;
}

class DispatcherProcess {
  private waiting: Array<(stats: Stats) => void> = [];
  private constructor(
    private readonly child: ChildProcess,
    /** Its internal API (webhook endpoints, D50). */
    readonly url: string,
  ) {
    child.on('message', (message: { kind: string } & Partial<Stats>) => {
      if (message.kind !== 'stats') return;
      const { rss = 0, peakHeapTotal = 0, peakHeapUsed = 0, peakExternal = 0, heap = 0, commands = 0 } = message;
      this.waiting.shift()?.({ rss, peakHeapTotal, peakHeapUsed, peakExternal, heap, commands });
    });
  }

  /** Forks the bundled dispatcher with `env` and waits until it is ready. */
  static async start(env: Record<string, string>): Promise<DispatcherProcess> {
    // Built once per bench run, whatever the number of replicas.
    const outfile = await (dispatcherBundle ??= bundleDispatcher());
    // --expose-gc: only for the live heap measured once the scenarios are over. CPU_PROFILE_DIR=<dir>: V8 CPU
    // profiles of the dispatcher, as scripts/lib/process-stack.ts writes them for the services. DISPATCHER_NODE_FLAGS:
    // node/V8 flags to try on the dispatcher (e.g. "--heap-growing-percent=50"), each run's memory against its CPU.
    const nodeFlags = process.env.DISPATCHER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    const execArgv = ['--expose-gc', ...nodeFlags, ...cpuProfileFlags('webhook-dispatcher')];
    const child = fork(outfile, [], {
      env: { ...process.env, ...env },
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`dispatcher exited with ${code}`)));
      child.on('message', (message: { kind: string; url?: string }) => {
        if (message.kind === 'ready') resolve(message.url ?? '');
      });
    });
    child.removeAllListeners('exit');
    return new DispatcherProcess(child, url);
  }

  /** afterGc: the heap in use is measured after a full garbage collection (only at the end: it pauses the process). */
  stats(afterGc = false): Promise<Stats> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.send(afterGc ? 'stats after gc' : 'stats');
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send('stop');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Several dispatchers as one (--replicas): their database commands summed, the largest one's memory
 * (each replica's RSS is a figure of its own, as a pod's limit is).
 */
export class DispatcherGroup {
  private constructor(private readonly members: DispatcherProcess[]) {}

  /** The first member's internal API: the members share one database, so one registers for all. */
  get url(): string {
    return this.members[0]?.url ?? '';
  }

  static async start(env: Record<string, string>, replicas: number): Promise<DispatcherGroup> {
    const members: DispatcherProcess[] = [];
    try {
      for (let i = 0; i < replicas; i++) members.push(await DispatcherProcess.start(env));
    } catch (err) {
      await Promise.all(members.map((member) => member.stop()));
      throw err;
    }
    return new DispatcherGroup(members);
  }

  async stats(afterGc = false): Promise<Stats> {
    const all = await Promise.all(this.members.map((member) => member.stats(afterGc)));
    const largest = all.reduce((a, b) => (b.rss > a.rss ? b : a));
    return { ...largest, commands: all.reduce((n, member) => n + member.commands, 0) };
  }

  async stop(): Promise<void> {
    await Promise.all(this.members.map((member) => member.stop()));
  }
}
