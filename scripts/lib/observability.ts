// The local observability backends (`npm start -- --observability`, the trace e2e test, the tracing bench): a
// trace store with a UI and a Prometheus loaded with the project's rules, all installed from the package
// registries by the project's own code and cached under ~/.cache/checkout-tools/.
//
//   services --OTLP/HTTP--> OpenTelemetry Collector --Zipkin v2 JSON--> Zipkin (in memory; UI and query API)
//   Prometheus --scrapes--> every service's /metrics, rules from deploy/observability/prometheus-rules.yaml
//
// Why these (docs/operations.md, "Traces"): Jaeger v2's Go module (`go install …/cmd/jaeger`) embeds only a
// placeholder page where its UI goes (cmd/query/app/ui/placeholder: the real assets are built from the jaeger-ui
// repository, not part of the module), so it gives no UI from the registries. Zipkin's server is one executable
// jar on Maven Central (io.zipkin:zipkin-server, exec classifier) with its UI inside; it does not take OTLP (its
// OTLP module, zipkin-otel, is not on Maven Central), so the collector translates, which is also where a cluster
// puts one. The collector is our four-component build of the Collector's modules (deploy/observability/collector)
// from the Go module proxy. Grafana Tempo has no UI of its own and is AGPL. Prometheus is Debian's package.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ensureCached, freePort, spawnGuarded, waitFor, type GuardedProcess } from '@checkout/engines';
import { runTool, toolsCacheRoot } from './tool-cache';

export const ZIPKIN_VERSION = '3.6.1';
const COLLECTOR_DIR = join(process.cwd(), 'deploy', 'observability', 'collector');
const RULES_FILE = join(process.cwd(), 'deploy', 'observability', 'prometheus-rules.yaml');

/** Zipkin's server jar, from Maven Central (once). */
export async function ensureZipkin(log: (line: string) => void): Promise<string> {
  const jarIn = (dir: string) => join(dir, `zipkin-server-${ZIPKIN_VERSION}-exec.jar`);
  const { dir } = await ensureCached({
    dir: join(toolsCacheRoot(), `zipkin-server-${ZIPKIN_VERSION}`),
    isComplete: async (dir) => existsSync(jarIn(dir)),
    log,
    build: async (tmp) => {
      log(`fetching io.zipkin:zipkin-server:${ZIPKIN_VERSION} (exec jar) from Maven Central (first run only)`);
      const mvn = await runTool(
        'mvn',
        [
          '-B',
          '-q',
          'dependency:copy',
          `-Dartifact=io.zipkin:zipkin-server:${ZIPKIN_VERSION}:jar:exec`,
          `-DoutputDirectory=${tmp}`,
        ],
        { log, cwd: tmp },
      );
      if (mvn.code !== 0 || !existsSync(jarIn(tmp))) throw new Error('mvn could not fetch the Zipkin server jar');
    },
  });
  return jarIn(dir);
}

/**
 * The collector binary, built with `go build` from deploy/observability/collector (its go.mod and go.sum pin
 * every module) into a cache entry named for those files' hash, so a change to them builds a new one. The first
 * build takes a few minutes (the modules download once into Go's own cache).
 */
export async function ensureCollector(log: (line: string) => void): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(COLLECTOR_DIR, file)));
  const binaryIn = (dir: string) => join(dir, 'otelcol-zipkin');
  const { dir } = await ensureCached({
    dir: join(toolsCacheRoot(), `otelcol-zipkin-${hash.digest('hex').slice(0, 12)}`),
    isComplete: async (dir) => existsSync(binaryIn(dir)),
    log,
    build: async (tmp) => {
      log(`building the OpenTelemetry Collector (OTLP in, Zipkin out) into ${tmp} (first run only, a few minutes)`);
      const build = await runTool('go', ['build', '-o', binaryIn(tmp), '.'], {
        log,
        quiet: true,
        cwd: COLLECTOR_DIR,
        env: { ...process.env, GOFLAGS: '-mod=readonly' },
      });
      if (build.code !== 0)
        throw new Error(`go build of the collector failed (is Go 1.25+ on the PATH?):\n${build.stderr.slice(-2_000)}`);
    },
  });
  return binaryIn(dir);
}

/** Prometheus and promtool from Debian (scripts/ensure-prometheus.sh). */
export async function ensurePrometheus(log: (line: string) => void): Promise<{ prometheus: string; promtool: string }> {
  const ensured = await runTool('bash', [join(process.cwd(), 'scripts', 'ensure-prometheus.sh')], { log, quiet: true });
  const promtool = /promtool: (?:present|installed) at (\S+)/.exec(ensured.stdout)?.[1];
  if (ensured.code !== 0 || !promtool) throw new Error(`scripts/ensure-prometheus.sh failed:\n${ensured.stderr}`);
  const prometheus = join(promtool, '..', 'prometheus');
  if (!existsSync(prometheus)) throw new Error(`promtool is at ${promtool} but no prometheus beside it`);
  return { prometheus, promtool };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await request(url, { headersTimeout: 2_000, bodyTimeout: 2_000 });
    await response.body.text();
    return response.statusCode < 500;
  } catch {
    return false;
  }
}

export interface TraceBackend {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the services (the collector's OTLP/HTTP receiver). */
  otlpEndpoint: string;
  /** Zipkin's UI and API base (`/zipkin/` is the UI, `/api/v2/…` the query API). */
  zipkinUrl: string;
  description: string;
  stop(): Promise<void>;
}

/** Zipkin (in memory) and the collector in front of it, on free loopback ports; both stop with this process. */
export async function startTraceBackend(options: {
  logDir: string;
  log: (line: string) => void;
}): Promise<TraceBackend> {
  const [jar, collector] = await Promise.all([ensureZipkin(options.log), ensureCollector(options.log)]);
  mkdirSync(options.logDir, { recursive: true });
  const [zipkinPort, otlpPort] = [await freePort(), await freePort()];
  const processes: GuardedProcess[] = [];
  const stop = async () => {
    for (const proc of processes.reverse()) await proc.stop(5_000);
  };
  try {
    processes.push(
      spawnGuarded({
        name: 'zipkin',
        command: 'java',
        args: [
          '-Xms64m',
          '-Xmx384m',
          '-XX:+UseSerialGC',
          '-XX:TieredStopAtLevel=1',
          '-jar',
          jar,
          `--armeria.ports[0].port=${zipkinPort}`,
          '--armeria.ports[0].ip=127.0.0.1',
          '--armeria.ports[0].protocols=http',
        ],
        cwd: options.logDir,
        logFile: join(options.logDir, 'zipkin.log'),
        // A slow, shared machine: the UI's 1 MB script must not be cut off by the 11 s default request timeout
        // (seen as ERR_INCOMPLETE_CHUNKED_ENCODING in the browser under load).
        env: { ...process.env, STORAGE_TYPE: 'mem', MEM_MAX_SPANS: '500000', QUERY_TIMEOUT: '120s' },
      }),
    );
    processes.push(
      spawnGuarded({
        name: 'otel-collector',
        command: collector,
        args: ['--config', `file:${join(COLLECTOR_DIR, 'collector.yaml')}`],
        cwd: options.logDir,
        logFile: join(options.logDir, 'otel-collector.log'),
        env: { ...process.env, OTLP_HTTP_PORT: String(otlpPort), ZIPKIN_PORT: String(zipkinPort) },
      }),
    );
    const zipkinUrl = `http://127.0.0.1:${zipkinPort}`;
    const otlpEndpoint = `http://127.0.0.1:${otlpPort}`;
    await waitFor(
      'Zipkin and the collector',
      async () => (await answers(`${zipkinUrl}/health`)) && answers(otlpEndpoint),
      {
        deadlineMs: 180_000,
        intervalMs: 500,
        abortIf: () => {
          const dead = processes.find((proc) => proc.exitInfo());
          if (dead) throw new Error(`${dead.name} exited during startup; see ${dead.logFile}`);
        },
      },
    );
    return {
      otlpEndpoint,
      zipkinUrl,
      description: `Zipkin ${ZIPKIN_VERSION} (in memory) behind an OpenTelemetry Collector 0.148.0`,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface LocalPrometheus {
  url: string;
  version: string;
  stop(): Promise<void>;
}

/**
 * Prometheus on a free loopback port, scraping `targets` (host:port of each /metrics) every 5 s with the project's
 * rules.
 */
export async function startPrometheus(options: {
  targets: Record<string, string>;
  logDir: string;
  log: (line: string) => void;
}): Promise<LocalPrometheus> {
  const { prometheus } = await ensurePrometheus(options.log);
  const port = await freePort();
  const dataDir = join(options.logDir, 'prometheus-data');
  mkdirSync(dataDir, { recursive: true });
  const config = join(options.logDir, 'prometheus.yml');
  const jobs = Object.entries(options.targets).map(
    ([service, target]) => `  - job_name: ${service}\n    static_configs:\n      - targets: ['${target}']`,
  );
  writeFileSync(
    config,
    `global:\n  scrape_interval: 5s\n  evaluation_interval: 5s\nrule_files:\n  - ${RULES_FILE}\nscrape_configs:\n${jobs.join('\n')}\n`,
  );
  const proc = spawnGuarded({
    name: 'prometheus',
    command: prometheus,
    args: [
      `--config.file=${config}`,
      `--storage.tsdb.path=${dataDir}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1d',
    ],
    cwd: options.logDir,
    logFile: join(options.logDir, 'prometheus.log'),
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor('Prometheus', () => answers(`${url}/-/ready`), {
      deadlineMs: 60_000,
      intervalMs: 300,
      abortIf: () => {
        if (proc.exitInfo()) throw new Error(`prometheus exited during startup; see ${proc.logFile}`);
      },
    });
  } catch (err) {
    await proc.stop(5_000);
    throw err;
  }
  const version =
    (await runTool(prometheus, ['--version'], { log: () => {}, quiet: true })).stdout.split('\n')[0] ?? '';
  return {
    url,
    version: version.replace(/^prometheus, version /, '').split(' ')[0] ?? '',
    stop: () => proc.stop(5_000),
  };
}
