import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheRoot, ensureCached, exists } from './cache';

describe('cacheRoot', () => {
  it('prefers XDG_CACHE_HOME, else ~/.cache', () => {
    expect(cacheRoot({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/checkout-engines');
    expect(cacheRoot({ XDG_CACHE_HOME: '', HOME: '/home/u' })).toBe('/home/u/.cache/checkout-engines');
  });
});

describe('ensureCached', () => {
  let root: string;
  let dir: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'engines-cache-test-'));
    dir = join(root, 'thing-1.0');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const isComplete = (d: string) => exists(join(d, 'artifact'));

  it('builds once and then reuses the entry', async () => {
    let builds = 0;
    const build = async (tmp: string) => {
      builds++;
      await writeFile(join(tmp, 'artifact'), 'v1');
    };
    expect(await ensureCached({ dir, isComplete, build })).toEqual({ dir, built: true });
    expect(await ensureCached({ dir, isComplete, build })).toEqual({ dir, built: false });
    expect(builds).toBe(1);
    expect(await readFile(join(dir, 'artifact'), 'utf8')).toBe('v1');
    expect(await readdir(root)).toEqual(['thing-1.0']); // no lock, no temp dirs
  });

  it('lets concurrent callers share a single build', async () => {
    let builds = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const build = async (tmp: string) => {
      builds++;
      await gate; // keep the first build in progress while the others arrive
      await writeFile(join(tmp, 'artifact'), 'shared');
    };
    const callers = [1, 2, 3].map(() => ensureCached({ dir, isComplete, build }));
    // The other callers must be waiting on the lock, not building, before the first build may finish.
    await expect
      .poll(async () => (await readdir(root)).some((n) => n.endsWith('.lock')), { timeout: 5_000 })
      .toBe(true);
    release();
    const results = await Promise.all(callers);
    expect(builds).toBe(1);
    expect(results.filter((r) => r.built)).toHaveLength(1);
    expect(await readdir(root)).toEqual(['thing-1.0']);
  });

  it('leaves nothing behind when the build fails, so the next call retries', async () => {
    await expect(
      ensureCached({
        dir,
        isComplete,
        build: async (tmp) => {
          await writeFile(join(tmp, 'half'), 'x');
          throw new Error('network down');
        },
      }),
    ).rejects.toThrow('network down');
    expect(await readdir(root)).toEqual([]);
    const result = await ensureCached({ dir, isComplete, build: (tmp) => writeFile(join(tmp, 'artifact'), 'ok') });
    expect(result.built).toBe(true);
  });

  it('breaks the lock of a dead builder and clears its temp dir', async () => {
    const dead = spawnSync('true').pid; // has exited, so its pid is (for now) unused
    await mkdir(`${dir}.lock`);
    await writeFile(join(`${dir}.lock`, 'owner.json'), JSON.stringify({ pid: dead, host: hostname() }));
    await mkdir(`${dir}.tmp-abc123`);
    const result = await ensureCached({ dir, isComplete, build: (tmp) => writeFile(join(tmp, 'artifact'), 'ok') });
    expect(result.built).toBe(true);
    expect(await readdir(root)).toEqual(['thing-1.0']);
  });

  it('rebuilds an entry that exists but is incomplete', async () => {
    await mkdir(dir);
    const result = await ensureCached({ dir, isComplete, build: (tmp) => writeFile(join(tmp, 'artifact'), 'ok') });
    expect(result.built).toBe(true);
    expect(await exists(join(dir, 'artifact'))).toBe(true);
  });
});
