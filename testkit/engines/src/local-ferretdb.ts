import { chmod, cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { cacheRoot, ensureCached, exists } from './cache';
import { restartableEngine, freePorts, run } from './process';

// The last 1.x release: it embeds SQLite, so it needs no PostgreSQL next to it (2.x requires
// PostgreSQL with the DocumentDB extension).
export const FERRETDB_VERSION = 'v1.24.0';
const MODULE = 'github.com/FerretDB/FerretDB';

function ferretDbCacheDir(root = cacheRoot()): string {
  return join(root, `ferretdb-${FERRETDB_VERSION}`);
}

/** Whether the binary is already cached (then Go is not needed). */
export const ferretDbCached = (root = cacheRoot()) => exists(join(ferretDbCacheDir(root), 'ferretdb'));

/** Pure Go, no cgo: the binary runs on any glibc/musl Linux and the build needs no C toolchain. */
function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false' };
}

/** Builds the FerretDB binary from the module source into the cache (once); returns its path. */
export async function provisionFerretDb(options: { log?: (line: string) => void } = {}): Promise<string> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const { dir, built } = await ensureCached({
    dir: ferretDbCacheDir(),
    isComplete: (dir) => exists(join(dir, 'ferretdb')),
    log,
    build: async (tmp) => {
      log(`building FerretDB ${FERRETDB_VERSION} from source (about a minute the first time)`);
      // `go install ...@v1.24.0` is not an option: the module proxy refuses the version list (403), while
      // downloading the pinned version works.
      const { stdout } = await run('go', ['mod', 'download', '-json', `${MODULE}@${FERRETDB_VERSION}`], {
        cwd: tmp,
        env: goEnv(),
        timeoutMs: 10 * 60_000,
      });
      const moduleDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
      if (!moduleDir) throw new Error(`go mod download did not report a directory for ${MODULE}@${FERRETDB_VERSION}`);

      // The module cache is read-only, and the release's build/version/version.txt is produced by its release
      // tooling, not committed; without it the binary panics at start-up. So build from a writable copy.
      const src = join(tmp, 'src');
      await cp(moduleDir, src, { recursive: true });
      await run('chmod', ['-R', 'u+w', src]);
      await writeFile(join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
      await run(
        'go',
        ['build', '-trimpath', '-tags', 'ferretdb_no_postgresql', '-o', join(tmp, 'ferretdb'), './cmd/ferretdb'],
        {
          cwd: src,
          env: goEnv(),
          timeoutMs: 20 * 60_000,
        },
      );
      await chmod(join(tmp, 'ferretdb'), 0o755);
      await rm(src, { recursive: true, force: true });
    },
  });
  const bin = join(dir, 'ferretdb');
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  if (built) log(`built FerretDB ${FERRETDB_VERSION} into ${bin} in ${took}`);
  return bin;
}

export interface LocalFerretDb {
  readonly url: string;
  readonly description: string;
  /** Starts FerretDB again on the same port and data, after stop() (a database outage that ends). */
  start(): Promise<void>;
  /** Stops the process; the port and data stay for start(). */
  stop(): Promise<void>;
}

export async function startLocalFerretDb(options: {
  bin: string;
  runDir: string;
  deadlineMs: number;
}): Promise<LocalFerretDb> {
  const dataDir = join(options.runDir, 'ferret-data');
  const stateDir = join(options.runDir, 'ferret-state');
  await mkdir(dataDir, { recursive: true });
  await mkdir(stateDir, { recursive: true });
  const [port] = (await freePorts(1)) as [number];
  const logFile = join(options.runDir, 'ferretdb.log');
  const url = `mongodb://127.0.0.1:${port}/`;
  const engine = restartableEngine({
    spawn: {
      name: 'ferretdb',
      command: options.bin,
      args: [
        '--handler=sqlite',
        // FerretDB wants a directory URL with a trailing slash: one SQLite file per database goes in it.
        `--sqlite-url=file:${dataDir}/`,
        `--state-dir=${stateDir}`,
        `--listen-addr=127.0.0.1:${port}`,
        '--telemetry=disable',
        '--debug-addr=-',
        '--log-level=warn',
      ],
      cwd: options.runDir,
      logFile,
    },
    name: 'FerretDB',
    label: `FerretDB ${FERRETDB_VERSION} at 127.0.0.1:${port}`,
    readiness: 'FerretDB readiness (ping)',
    probe: () => pingMongo(url),
    deadlineMs: options.deadlineMs,
    intervalMs: 200,
    logFiles: [logFile],
  });

  await engine.start();
  return {
    url,
    description: `FerretDB ${FERRETDB_VERSION} (SQLite) at 127.0.0.1:${port}`,
    start: engine.start,
    stop: engine.stop,
  };
}

export async function pingMongo(url: string): Promise<true> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
    return true;
  } finally {
    await client.close().catch(() => {});
  }
}
