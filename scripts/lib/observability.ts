// The local observability backends (`npm start -- --observability`, the trace e2e test, the tracing bench): a
// trace store with a UI and a Prometheus loaded with the project's rules, all installed from the package
// registries by the project's own code and cached under ~/.cache/checkout-tools/.
//
//   services --Zipkin v2 JSON (OTEL_TRACES_EXPORTER=zipkin)--> Zipkin (in memory; UI and query API)
//   Prometheus --scrapes--> every service's /metrics, rules from deploy/observability/prometheus-rules.yaml
//
// Why these (docs/operations.md, "Traces"; docs/decisions.md, "Traces locally: straight to Zipkin"): Jaeger v2's
// Go module embeds only a placeholder where its UI goes (the real assets are built from the jaeger-ui repository),
// so it gives no UI from the registries. Zipkin's server is one executable jar on Maven Central
// (io.zipkin:zipkin-server, exec classifier) with its UI inside. It takes no OTLP (its OTLP module, zipkin-otel,
// is not on Maven Central), so the services use OpenTelemetry's own Zipkin exporter, chosen by the standard
// OTEL_TRACES_EXPORTER: no collector to build or run locally. A cluster keeps OTLP through a collector
// (deploy/k8s/observability, the upstream otelcol-contrib image). Grafana Tempo has no UI of its own and is AGPL.
// Prometheus is Debian's package.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ensureCached, freePort, spawnGuarded, waitFor } from '@checkout/engines';
import { runTool, toolsCacheRoot } from './tool-cache';

const ZIPKIN_VERSION = '3.6.1';
const RULES_FILE = join(process.cwd(), 'deploy', 'observability', 'prometheus-rules.yaml');

/** Zipkin's server jar, from Maven Central (once). */
async function ensureZipkin(log: (line: string) => void): Promise<string> {
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

/** Prometheus and promtool from Debian (scripts/ensure-prometheus.sh). */
async function ensurePrometheus(log: (line: string) => void): Promise<{ prometheus: string; promtool: string }> {
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
  /**
   * The OTEL_* settings that send a service's spans here (Zipkin's span API, by the standard Zipkin exporter), to
   * merge into its environment.
   */
  env: { OTEL_TRACES_EXPORTER: 'zipkin'; OTEL_EXPORTER_ZIPKIN_ENDPOINT: string };
  /** Zipkin's UI and API base (`/zipkin/` is the UI, `/api/v2/…` the query API). */
  zipkinUrl: string;
  description: string;
  stop(): Promise<void>;
}

/** Zipkin (in memory) on a free loopback port; it stops with this process. */
export async function startTraceBackend(options: {
  logDir: string;
  log: (line: string) => void;
}): Promise<TraceBackend> {
  const jar = await ensureZipkin(options.log);
  mkdirSync(options.logDir, { recursive: true });
  const zipkinPort = await freePort();
  const zipkin = spawnGuarded({
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
  });
  const stop = () => zipkin.stop(5_000);
  const zipkinUrl = `http://127.0.0.1:${zipkinPort}`;
  try {
    await waitFor('Zipkin', () => answers(`${zipkinUrl}/health`), {
      deadlineMs: 180_000,
      intervalMs: 500,
      abortIf: () => {
        if (zipkin.exitInfo()) throw new Error(`zipkin exited during startup; see ${zipkin.logFile}`);
      },
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    env: { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${zipkinUrl}/api/v2/spans` },
    zipkinUrl,
    description: `Zipkin ${ZIPKIN_VERSION} (in memory), the services sending to its span API`,
    stop,
  };
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
