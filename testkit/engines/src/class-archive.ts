import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ensureCached, exists } from './cache';

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

const ARCHIVE = 'classes.jsa';

/** The cache entry of the archive of an engine whose jars are in `cacheDir`, for the `java` on PATH. */
const archiveDir = (cacheDir: string): string => join(cacheDir, `class-archive-${javaIdentity()}`);

/** Where that archive lives. */
export const classArchivePath = (cacheDir: string): string => join(archiveDir(cacheDir), ARCHIVE);

/** The flag that maps the archive into a JVM, when one has been trained; none before. */
export function classArchiveFlags(cacheDir: string): string[] {
  const archive = classArchivePath(cacheDir);
  return !archiveOff() && existsSync(archive) ? [`-XX:SharedArchiveFile=${archive}`] : [];
}

/**
 * Trains the archive once: `run` starts and gracefully stops the engine with the flag it is given, and the JVM
 * writes what it loaded as it exits. A cache entry like the engines' own (ensureCached): concurrent trainers wait
 * for the first, and a JVM never maps a half-written archive. Rejects if the training run wrote none.
 */
export async function trainClassArchive(
  cacheDir: string,
  run: (dumpFlag: string) => Promise<void>,
  log: (line: string) => void,
): Promise<void> {
  if (archiveOff()) return;
  const started = Date.now();
  const { dir, built } = await ensureCached({
    dir: archiveDir(cacheDir),
    isComplete: (dir) => exists(join(dir, ARCHIVE)),
    log,
    build: async (tmp) => {
      await run(`-XX:ArchiveClassesAtExit=${join(tmp, ARCHIVE)}`);
      if (!(await exists(join(tmp, ARCHIVE)))) throw new Error('the training run wrote no class-data archive');
    },
  });
  if (built) log(`trained a class-data archive in ${((Date.now() - started) / 1000).toFixed(1)} s: ${dir}`);
}
