import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from './process';

const RUN_DIR_PREFIX = 'checkout-engines-';
const RUN_DIR_OWNER = new RegExp(`^${RUN_DIR_PREFIX}(\\d+)-`);

/** A fresh directory for this process's local engines' data and logs, named so a later run can sweep it. */
export async function createRunDir(): Promise<string> {
  await sweepStaleRunDirs();
  return mkdtemp(join(tmpdir(), `${RUN_DIR_PREFIX}${process.pid}-`));
}

/** Run dirs of processes that died without stopping (SIGKILL) would otherwise pile up in /tmp. */
async function sweepStaleRunDirs(): Promise<void> {
  const dir = tmpdir();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = RUN_DIR_OWNER.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !isAlive(Number(pid))) {
      await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
    }
  }
}
