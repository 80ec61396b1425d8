import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot, ensureCached, exists } from './cache';
import { pingMongo } from './local-ferretdb';
import { restartableEngine, freePorts, run } from './process';

// mongo-java-server (de.bwaldvogel, Maven Central): a MongoDB wire-protocol emulator in Java. Chosen as the
// default local engine after measuring the candidates (docs/engines.md): its single-document updates are
// atomic and it looks documents up through its indexes, unlike FerretDB 1.24.
export const MONGO_JAVA_SERVER_VERSION = '1.47.0';

/**
 * The launcher is ours (testkit/engines/java); a hash of its source is part of the cache key, so an edit rebuilds it.
 */
const LAUNCHER_SOURCE = fileURLToPath(new URL('../java/CheckoutMongoServer.java', import.meta.url));
const LAUNCHER_CLASS = 'CheckoutMongoServer';
let launcherHash: string | undefined;
const launcherRevision = () =>
  (launcherHash ??= createHash('sha256').update(readFileSync(LAUNCHER_SOURCE)).digest('hex').slice(0, 10));

export type MongoJavaServerBackend = 'h2' | 'memory';

function mongoJavaServerCacheDir(root = cacheRoot()): string {
  return join(root, `mongo-java-server-${MONGO_JAVA_SERVER_VERSION}-${launcherRevision()}`);
}

const launcherClassFile = (dir: string) => join(dir, 'classes', `${LAUNCHER_CLASS}.class`);
const coreJar = (dir: string) => join(dir, 'libs', `mongo-java-server-core-${MONGO_JAVA_SERVER_VERSION}.jar`);
const isComplete = async (dir: string) => (await exists(coreJar(dir))) && (await exists(launcherClassFile(dir)));

/** Whether jars and launcher are cached (then Maven is not needed). */
export const mongoJavaServerCached = (root = cacheRoot()) => isComplete(mongoJavaServerCacheDir(root));

function renderMongoJavaServerPom(): string {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.checkout-engines</groupId>
  <artifactId>mongo-java-server-dist</artifactId>
  <version>${MONGO_JAVA_SERVER_VERSION}</version>
  <dependencies>
    <dependency>
      <groupId>de.bwaldvogel</groupId>
      <artifactId>mongo-java-server</artifactId>
      <version>${MONGO_JAVA_SERVER_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>de.bwaldvogel</groupId>
      <artifactId>mongo-java-server-h2-backend</artifactId>
      <version>${MONGO_JAVA_SERVER_VERSION}</version>
    </dependency>
  </dependencies>
</project>
`;
}

/**
 * Downloads mongo-java-server's jars from Maven Central and compiles the launcher against them, into the
 * cache (once); returns the cache directory (libs/ and classes/ below it).
 */
export async function provisionMongoJavaServer(options: { log?: (line: string) => void } = {}): Promise<string> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const { dir, built } = await ensureCached({
    dir: mongoJavaServerCacheDir(),
    isComplete,
    log,
    build: async (tmp) => {
      log(`resolving mongo-java-server ${MONGO_JAVA_SERVER_VERSION} jars from Maven Central`);
      await writeFile(join(tmp, 'pom.xml'), renderMongoJavaServerPom());
      await run(
        'mvn',
        [
          '-B',
          '-q',
          '-f',
          join(tmp, 'pom.xml'),
          'dependency:copy-dependencies',
          `-DoutputDirectory=${join(tmp, 'libs')}`,
          '-DincludeScope=runtime',
        ],
        { cwd: tmp, timeoutMs: 20 * 60_000 },
      );
      if (!(await exists(coreJar(tmp))))
        throw new Error(
          `mvn finished but ${coreJar('.')} is missing; mongo-java-server ${MONGO_JAVA_SERVER_VERSION} did not resolve`,
        );
      await mkdir(join(tmp, 'src'), { recursive: true });
      await copyFile(LAUNCHER_SOURCE, join(tmp, 'src', `${LAUNCHER_CLASS}.java`));
      await run(
        'javac',
        [
          '--release',
          '17',
          '-d',
          join(tmp, 'classes'),
          '-cp',
          join(tmp, 'libs', '*'),
          join(tmp, 'src', `${LAUNCHER_CLASS}.java`),
        ],
        {
          cwd: tmp,
          timeoutMs: 5 * 60_000,
        },
      );
    },
  });
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  if (built)
    log(
      `cached mongo-java-server ${MONGO_JAVA_SERVER_VERSION} (${(await readdir(join(dir, 'libs'))).length} jars + launcher) in ${dir} in ${took}`,
    );
  return dir;
}

// Small heap and C1 only, as for Kafka: a test engine competes for 2 cores with everything else a run
// starts. The H2 backend keeps its pages off-heap in the file's cache; 512 MiB covers the bench's 100 k orders.
const JVM_OPTIONS = [
  '-Xms64m',
  '-Xmx512m',
  '-XX:TieredStopAtLevel=1',
  '-XX:+UseSerialGC',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

export interface LocalMongoJavaServer {
  readonly url: string;
  readonly description: string;
  /** Starts it again on the same port and (H2) data, after stop(). */
  start(): Promise<void>;
  /** SIGTERM: the launcher's shutdown hook closes the H2 store, so what was acknowledged is on disk. */
  stop(): Promise<void>;
}

export async function startLocalMongoJavaServer(options: {
  dir: string;
  runDir: string;
  deadlineMs: number;
  backend?: MongoJavaServerBackend;
  /** The JVM's heap (-Xmx) in MiB; 512 unless a bench needs more (its aggregation holds what it matched). */
  maxHeapMiB?: number;
}): Promise<LocalMongoJavaServer> {
  const backend = options.backend ?? 'h2';
  const dataDir = join(options.runDir, 'mongo-java-server-data');
  await mkdir(dataDir, { recursive: true });
  const [port] = (await freePorts(1)) as [number];
  const logFile = join(options.runDir, 'mongo-java-server.log');
  const url = `mongodb://127.0.0.1:${port}/`;
  const classpath = [join(options.dir, 'classes'), join(options.dir, 'libs', '*')].join(':');
  const backendArgs = backend === 'h2' ? ['h2', join(dataDir, 'data.mv.db')] : ['memory'];
  const engine = restartableEngine({
    spawn: {
      name: 'mongo-java-server',
      command: 'java',
      args: [
        ...JVM_OPTIONS.map((o) => (o === '-Xmx512m' && options.maxHeapMiB ? `-Xmx${options.maxHeapMiB}m` : o)),
        '-cp',
        classpath,
        LAUNCHER_CLASS,
        '127.0.0.1',
        String(port),
        ...backendArgs,
      ],
      cwd: options.runDir,
      logFile,
    },
    name: 'mongo-java-server',
    label: `mongo-java-server ${MONGO_JAVA_SERVER_VERSION} at 127.0.0.1:${port}`,
    readiness: 'mongo-java-server readiness (ping)',
    probe: () => pingMongo(url),
    deadlineMs: options.deadlineMs,
    intervalMs: 100,
    logFiles: [logFile],
  });
  await engine.start();
  const what = backend === 'h2' ? 'H2 file' : 'in memory';
  return {
    url,
    description: `mongo-java-server ${MONGO_JAVA_SERVER_VERSION} (${what}, MongoDB emulator) at 127.0.0.1:${port}`,
    start: engine.start,
    stop: engine.stop,
  };
}
