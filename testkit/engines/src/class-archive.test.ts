import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classArchiveFlags, classArchivePath, trainClassArchive } from './class-archive';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'class-archive-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const dumpTarget = (flag: string) => flag.replace('-XX:ArchiveClassesAtExit=', '');

describe('the class-data archive of a JVM engine', () => {
  it('is not mapped before it is trained, and is mapped once the training run wrote it', async () => {
    expect(classArchiveFlags(dir)).toEqual([]);
    await trainClassArchive(
      dir,
      (flag) => writeFile(dumpTarget(flag), 'archive'),
      () => {},
    );
    expect(classArchiveFlags(dir)).toEqual([`-XX:SharedArchiveFile=${classArchivePath(dir)}`]);
    expect(await readFile(classArchivePath(dir), 'utf8')).toBe('archive');
  });

  it('is trained once: a second call finds it and starts nothing, a concurrent one waits for the first', async () => {
    let runs = 0;
    const run = async (flag: string) => {
      runs++;
      await writeFile(dumpTarget(flag), 'archive');
    };
    await Promise.all([trainClassArchive(dir, run, () => {}), trainClassArchive(dir, run, () => {})]);
    await trainClassArchive(dir, run, () => {});
    expect(runs).toBe(1);
  });

  it('leaves nothing a JVM would map when the training run wrote no archive or wrote part of one and failed', async () => {
    await expect(
      trainClassArchive(
        dir,
        async () => {},
        () => {},
      ),
    ).rejects.toThrow(/wrote no class-data archive/);
    const failing = trainClassArchive(
      dir,
      async (flag) => {
        await writeFile(dumpTarget(flag), 'half');
        throw new Error('the engine did not start');
      },
      () => {},
    );
    await expect(failing).rejects.toThrow('the engine did not start');
    expect(classArchiveFlags(dir)).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });
});
