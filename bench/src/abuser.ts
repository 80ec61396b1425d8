// The abuse bench's abuser, in a process of its own, as it would be on another machine: its load (100 requests/s of
// 60 kB bodies) and its victim receiver (16 endpoints' deliveries) run on their own event loop, so the live
// merchant's timestamps, taken in the bench's process, wait for none of the abuser's work. They still share the
// machine's cores, as every process of the stack does.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./abuser-process.ts', import.meta.url));

/** What the bench asks the abuser's process. */
export type AbuserRequest =
  { kind: 'run'; gatewayUrl: string; key: string; rate: number; ms: number } | { kind: 'delivered' } | { kind: 'stop' };

/** What the abuser's process answers: its receiver's origin once, then one answer per request. */
export type AbuserAnswer =
  | { kind: 'ready'; victimOrigin: string }
  | { kind: 'ran'; tally: Array<[string, number]> }
  | { kind: 'delivered'; count: number }
  | { kind: 'stopped' };

/** Answers by status and code (`201`, `429 RATE_LIMITED`, `429 QUOTA_EXCEEDED`…). */
export type Tally = Map<string, number>;

export interface Abuser {
  /** The abuser's victim: a URL on its receiver for `path`. */
  victimUrl(path: string): string;
  /** Sends the abuser's load for `ms` at `rate` requests a second with `key`; its answers by status and code. */
  run(options: { gatewayUrl: string; key: string; rate: number; ms: number }): Promise<Tally>;
  /** Deliveries its receiver has taken so far. */
  delivered(): Promise<number>;
  stop(): Promise<void>;
}

export async function startAbuser(): Promise<Abuser> {
  const child = fork(ENTRY, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await answer(child, 'ready');
  const ask = async <K extends AbuserAnswer['kind']>(request: AbuserRequest, kind: K) => {
    const answered = answer(child, kind);
    child.send(request);
    return answered;
  };
  return {
    victimUrl: (path) => `${ready.victimOrigin}${path}`,
    run: async (options) => new Map((await ask({ kind: 'run', ...options }, 'ran')).tally),
    delivered: async () => (await ask({ kind: 'delivered' }, 'delivered')).count,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      await ask({ kind: 'stop' }, 'stopped').catch(() => undefined);
      await exited;
    },
  };
}

/** The next answer of `kind` from the child, or its exit as an error. */
function answer<K extends AbuserAnswer['kind']>(
  child: ChildProcess,
  kind: K,
): Promise<Extract<AbuserAnswer, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: AbuserAnswer) => {
      if (message.kind !== kind) return;
      child.off('message', onMessage).off('exit', onExit);
      resolve(message as Extract<AbuserAnswer, { kind: K }>);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`the abuser's process exited (${code}) before answering ${kind}`));
    };
    child.on('message', onMessage).once('exit', onExit);
  });
}
