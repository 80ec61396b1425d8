import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { exists } from './cache';

// A JVM engine (Kafka) is started dozens of times per test run, and each start parses and verifies the same
// few thousand classes. A dynamic class-data archive (AppCDS, JEP 350) holds them once parsed and verified, and
// every later start maps it: a broker's start to listening drops from ~2.4 to ~1.4 CPU-s on this class of
// machine. The JVM checks the archive against its own build and the classpath's jars and, on any mismatch,
// ignores it and loads classes as usual, so a stale archive costs the saving, never a start. The archive's name
// carries the `java` binary it was made by, so a JDK upgrade trains a new one beside the old.

/** The `java` the engines run (the first on PATH), identified by its real path, size and modification time. */
function javaIdentity(path = process.env.PATH ?? ''): string {
  for (const dir of path.split(delimiter)) {
    const candidate = join(dir, 'java');
    if (!existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    const { size, mtimeMs } = statSync(real);
    return createHash('sha256').update(`${real}\0${size}\0${mtimeMs}`).digest('hex').slice(0, 12);
  }
  return 'no-java';
}

/** `CHECKOUT_CLASS_ARCHIVE=off`: engines neither train nor map an archive (to measure what it saves). */
const archiveOff = () => process.env.CHECKOUT_CLASS_ARCHIVE === 'off';

/** Where the archive of an engine whose jars are in `cacheDir` lives, for the `java` on PATH. */
export const classArchivePath = (cacheDir: string): string => join(cacheDir, `classes-${javaIdentity()}.jsa`);

/** The flag that maps the archive into a JVM, when one has been trained; none before. */
export function classArchiveFlags(cacheDir: string): string[] {
  const archive = classArchivePath(cacheDir);
  return !archiveOff() && existsSync(archive) ? [`-XX:SharedArchiveFile=${archive}`] : [];
}

/**
 * Trains the archive once: `run` starts and gracefully stops the engine with the flag it is given, and the JVM
 * writes what it loaded as it exits. Written under a name of its own and renamed into place, so concurrent
 * trainers never leave a half-written archive where a JVM would map it. Returns whether an archive is in place.
 */
export async function trainClassArchive(
  cacheDir: string,
  run: (dumpFlag: string) => Promise<void>,
  log: (line: string) => void,
): Promise<boolean> {
  if (archiveOff()) return false;
  const archive = classArchivePath(cacheDir);
  if (await exists(archive)) return true;
  const partial = `${archive}.${process.pid}.${Date.now()}.partial`;
  const started = Date.now();
  try {
    await run(`-XX:ArchiveClassesAtExit=${partial}`);
    if (!(await exists(partial))) {
      log(`no class-data archive written to ${partial}; engines start without one`);
      return false;
    }
    await rename(partial, archive);
    log(`trained a class-data archive in ${((Date.now() - started) / 1000).toFixed(1)} s: ${archive}`);
    return true;
  } finally {
    await rm(partial, { force: true });
  }
}
