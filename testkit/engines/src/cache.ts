import { hostname, homedir } from 'node:os';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from './process';
import { errorMessage, waitFor } from './wait';

/**
 * Built engines live outside the checkout so that every worktree, every clean clone and `git clean -fdx` reuse
 * them; the directory name carries the version so an upgrade never runs stale binaries.
 */
export function cacheRoot(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.cache');
  return join(base, 'checkout-engines');
}

export interface EnsureCachedOptions {
  /** Final location; it exists only once complete, because it is created by renaming a finished temp dir. */
  dir: string;
  /** Decides whether an existing `dir` is usable (guards against a cache from an older, non-atomic layout). */
  isComplete: (dir: string) => Promise<boolean>;
  /** Fills `tmpDir`, which is renamed to `dir` afterwards. */
  build: (tmpDir: string) => Promise<void>;
  log?: (line: string) => void;
  /** How long to wait for another process that is building the same entry. */
  waitForOtherBuilderMs?: number;
}

/**
 * Returns `dir`, building it first if needed. Concurrent callers (two test runs, or `npm start` next to
 * `npm test`) serialise on a lock directory - mkdir is atomic - so an entry is built once and nobody ever
 * sees a half-built one.
 */
export async function ensureCached(options: EnsureCachedOptions): Promise<{ dir: string; built: boolean }> {
  const { dir, isComplete, log = () => {} } = options;
  if (await isComplete(dir)) return { dir, built: false };

  await mkdir(dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  await acquireLock(lock, log, options.waitForOtherBuilderMs ?? 20 * 60_000);
  try {
    // Whoever held the lock before us may have finished the job.
    if (await isComplete(dir)) return { dir, built: false };
    await removeLeftovers(dir);
    const tmp = await mkdtemp(`${dir}.tmp-`);
    try {
      await options.build(tmp);
      await rename(tmp, dir);
    } catch (error) {
      await rm(tmp, { recursive: true, force: true });
      throw error;
    }
    return { dir, built: true };
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

interface LockOwner {
  pid: number;
  host: string;
}

async function acquireLock(lock: string, log: (line: string) => void, deadlineMs: number): Promise<void> {
  let announced = false;
  await waitFor(
    `lock ${lock}`,
    async () => {
      try {
        await mkdir(lock);
        await writeFile(
          join(lock, 'owner.json'),
          JSON.stringify({ pid: process.pid, host: hostname() } satisfies LockOwner),
        );
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (await isStale(lock)) {
        log(`removing stale lock ${lock}`);
        await rm(lock, { recursive: true, force: true });
        return false;
      }
      if (!announced) {
        announced = true;
        log(`waiting for another process building ${basename(lock, '.lock')} (lock ${lock})`);
      }
      return false;
    },
    { deadlineMs, intervalMs: 500 },
  ).catch((error: unknown) => {
    throw new Error(
      `could not lock the engines cache: ${errorMessage(error)}; if no other build is running, delete ${lock}`,
    );
  });
}

/** A lock whose owner is a dead process on this host was left by a killed build. */
async function isStale(lock: string): Promise<boolean> {
  try {
    const owner = JSON.parse(await readFile(join(lock, 'owner.json'), 'utf8')) as LockOwner;
    return owner.host === hostname() && !isAlive(owner.pid);
  } catch {
    // The owner file is written right after mkdir; only a lock that has stayed without one for a while
    // (its creator died in between) counts as stale.
    try {
      return Date.now() - (await stat(lock)).mtimeMs > 60_000;
    } catch {
      return false; // gone meanwhile
    }
  }
}

/** Temp dirs of killed builds and an incomplete entry; safe because we hold the lock. */
async function removeLeftovers(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const prefix = `${basename(dir)}.tmp-`;
  for (const name of await readdir(dirname(dir))) {
    if (name.startsWith(prefix)) await rm(join(dirname(dir), name), { recursive: true, force: true });
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
