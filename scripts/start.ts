// `npm start`: real engines (provisioned and cached on first use), the four services as processes, a demo
// organization with test and live keys; prints where everything is. Ctrl-C stops it all.
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startEngines, type Engines } from '@checkout/engines';
import { AdminClient } from '@checkout/testing';
import { Checkout } from '@checkout/sdk';
import { countFlag, startClusterStack, type ClusterStack } from './lib/cluster-stack';
import { startPrometheus, startTraceBackend, type LocalPrometheus, type TraceBackend } from './lib/observability';
import { portIsFree, startProcessStack, type ProcessStack } from './lib/process-stack';
import {
  ensureReleaseBundles,
  fromFlag,
  resolveRelease,
  type ResolvedRelease,
  type ServiceBuild,
} from './lib/releases';

export const STACK_FILE = '.stack.json';
const log = (line: string) => process.stderr.write(`[start] ${line}\n`);

type Stack = Pick<ProcessStack, 'env' | 'stop'>;
type Demo = Awaited<ReturnType<AdminClient['createOrganizationWithKeys']>>;

interface StartOptions {
  replicas: number;
  brokers: number;
  release: ResolvedRelease | undefined;
  from: ServiceBuild | undefined;
  /** A trace store with a UI (Zipkin, which the services send their spans to) and Prometheus with the rules. */
  observability: boolean;
  logDir: string;
}

async function main(): Promise<void> {
  const started = Date.now();
  const args = process.argv.slice(2);
  // `--from <release>` runs a recorded release (`previous`: the latest one) from its own bundles, built
  // once per commit under ~/.cache/checkout-releases/ (scripts/lib/releases.ts).
  const fromSpec = fromFlag(args);
  const release = fromSpec === undefined ? undefined : resolveRelease(fromSpec);
  const from = release ? await ensureReleaseBundles(release, log) : undefined;
  if (release && from)
    log(
      `services from ${release.recorded ? `release ${release.version}` : 'commit'} ${release.commit.slice(0, 12)}: ${from.bundleDir}${from.built ? ` (built in ${from.seconds.toFixed(1)} s)` : ' (cached)'}`,
    );
  const options: StartOptions = {
    // `--replicas N` runs N processes of each service behind HAProxy, `--brokers 3` a three-broker Kafka.
    replicas: countFlag(args, 'replicas', 1, 20),
    brokers: countFlag(args, 'brokers', 1, 5),
    release,
    from,
    observability: args.includes('--observability'),
    logDir: join(tmpdir(), `checkout-stack-${process.pid}`),
  };
  const engines = await startEngines({
    log: (line) => log(`engines: ${line}`),
    ...(options.brokers > 1 && { kafkaBrokers: options.brokers }),
  });
  log(`engines ready: ${engines.description}`);
  const traces = options.observability ? await stoppingOnFailure(startTraces(options), [engines]) : undefined;
  const { stack, clusterStack } = await stoppingOnFailure(startServices(options, engines, traces), [traces, engines]);
  const prometheus = options.observability ? await startMetrics(options, stack, clusterStack) : undefined;
  const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
  const demo = await admin.createOrganizationWithKeys('Demo Coffee Co');
  writeStackFile(stack, demo);
  // D47: a ready login link to the demo organization's test-mode dashboard (single use, 5 minutes).
  const dashboardLink = await new Checkout(demo.testKey, {
    baseUrl: stack.env.gatewayUrl,
  }).dashboard.loginLinks.create();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    banner({
      options,
      seconds,
      engines,
      stack,
      clusterStack,
      traces,
      prometheus,
      demo,
      dashboardUrl: dashboardLink.url,
    }),
  );
  stopOnSignals([stack, prometheus, traces, engines]);
}

/** On a failed start, what already runs is stopped before the error goes on. */
async function stoppingOnFailure<T>(
  starting: Promise<T>,
  running: ReadonlyArray<{ stop(): Promise<void> } | undefined>,
): Promise<T> {
  try {
    return await starting;
  } catch (err) {
    for (const part of running) await part?.stop();
    throw err;
  }
}

async function startTraces(options: StartOptions): Promise<TraceBackend> {
  const traces = await startTraceBackend({ logDir: join(options.logDir, 'observability'), log });
  log(`traces: ${traces.description}`);
  return traces;
}

/** One process of each service, or (with more replicas or brokers) each behind HAProxy. */
async function startServices(
  options: StartOptions,
  engines: Engines,
  traces: TraceBackend | undefined,
): Promise<{ stack: Stack; clusterStack?: ClusterStack }> {
  const preferred = Number(process.env.PORT ?? 8080);
  // Every span of every service goes to Zipkin (100 %: parentbased_traceidratio with the default ratio 1).
  const otel = traces?.env;
  const stackOptions = {
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: 'local',
    logLevel: process.env.LOG_LEVEL ?? 'info',
    logDir: options.logDir,
    gatewayPort: (await portIsFree(preferred)) ? preferred : undefined,
    webhookRetryDelaysMs: process.env.WEBHOOK_RETRY_DELAYS_MS,
    ...(otel && { extraEnv: { gateway: otel, orders: otel, sessions: otel, dispatcher: otel } }),
  };
  const { from } = options;
  if (options.replicas > 1 || options.brokers > 1) {
    const clusterStack = await startClusterStack({
      ...stackOptions,
      replicas: options.replicas,
      replicationFactor: engines.kafkaReplicationFactor,
      minInsyncReplicas: engines.kafkaCluster?.minInsyncReplicas ?? 1,
      ...(from && { from }),
      log,
    });
    return { stack: clusterStack, clusterStack };
  }
  return { stack: await startProcessStack({ ...stackOptions, ...(from && { bundleDir: from.bundleDir }) }) };
}

/**
 * Prometheus scraping each service's /metrics (the gateway's on its operators' listener); on the cluster, through
 * its frontend, so each scrape reads one replica in turn.
 */
function startMetrics(options: StartOptions, stack: Stack, clusterStack?: ClusterStack): Promise<LocalPrometheus> {
  const hostPort = (url: string) => new URL(url).host;
  const targets = clusterStack
    ? {
        gateway: hostPort(clusterStack.frontends.admin),
        orders: hostPort(clusterStack.frontends.orders),
        sessions: hostPort(clusterStack.frontends.sessions),
        'webhook-dispatcher': hostPort(clusterStack.frontends.dispatcher),
      }
    : {
        gateway: hostPort(stack.env.adminUrl),
        orders: `127.0.0.1:${stack.env.orders.PORT}`,
        sessions: `127.0.0.1:${stack.env.sessions.PORT}`,
        'webhook-dispatcher': `127.0.0.1:${stack.env.dispatcher.PORT}`,
      };
  return startPrometheus({ targets, logDir: join(options.logDir, 'observability'), log });
}

/**
 * Read by `npm run admin` and `npm run cli` (D45) so that they work against this stack without flags; it holds local
 * secrets only and is git-ignored.
 */
function writeStackFile(stack: Stack, demo: Demo): void {
  const file = {
    gatewayUrl: stack.env.gatewayUrl,
    adminUrl: stack.env.adminUrl,
    adminToken: stack.env.adminToken,
    organizationId: demo.organizationId,
    testKey: demo.testKey,
  };
  writeFileSync(STACK_FILE, JSON.stringify(file, null, 2), { mode: 0o600 });
}

function banner(parts: {
  options: StartOptions;
  seconds: string;
  engines: Engines;
  stack: Stack;
  clusterStack: ClusterStack | undefined;
  traces: TraceBackend | undefined;
  prometheus: LocalPrometheus | undefined;
  demo: Demo;
  dashboardUrl: string;
}): string {
  const { options, engines, stack, demo } = parts;
  const { release } = options;
  const running = release
    ? `\n  release       ${release.version}${release.recorded ? '' : ' (not a recorded release)'}, commit ${release.commit}`
    : '';
  return `
Orders and hosted checkout — local stack ready in ${parts.seconds} s
  engines       ${engines.description}${running}${loadBalancerLines(options, parts.clusterStack)}
  gateway       ${stack.env.gatewayUrl}            (try: curl ${stack.env.gatewayUrl}/readyz)
  admin         ${stack.env.adminUrl}            (operators' listener: admin API, /internal, /metrics; never exposed)
  checkout      ${stack.env.checkoutBaseUrl}/<session id>
  OpenAPI       ${stack.env.gatewayUrl}/v0/openapi.json
  dashboard     ${parts.dashboardUrl}
                (test mode; single use, valid 5 minutes; a new one: npm run cli -- dashboard)
  organization  ${demo.organizationId} (Demo Coffee Co)
  test key      ${demo.testKey}
  live key      ${demo.liveKey}
  admin token   ${stack.env.adminToken}   (npm run admin -- help)
  service logs  ${options.logDir}${observabilityLines(parts.traces, parts.prometheus)}

  curl -s ${stack.env.gatewayUrl}/v0/checkout/sessions -H "Authorization: Bearer ${demo.testKey}" \\
    -H 'Content-Type: application/json' -d '{"items":[{"name":"Latte","quantity":1,"unitPrice":450}]}'

  npm run cli -- listen --forward-to http://localhost:3000/webhooks    # relay new events to your local endpoint
  npm run cli -- trigger checkout.session.completed                   # create and pay a test session

Press Ctrl-C to stop everything.`;
}

function loadBalancerLines(options: StartOptions, clusterStack: ClusterStack | undefined): string {
  if (!clusterStack) return '';
  const { replicas } = options;
  const replicaPorts = (['gateway', 'orders', 'sessions', 'webhook-dispatcher'] as const)
    .map(
      (s) =>
        `${s} ${clusterStack
          .live(s)
          .map((r) => `:${r.port}`)
          .join(' ')}`,
    )
    .join(';  ');
  return `
  load balancer ${clusterStack.haproxy.version}: ${replicas} replica${replicas === 1 ? '' : 's'} of each service behind it (health checks on /readyz)
    gateway     ${clusterStack.frontends.gateway}   admin ${clusterStack.frontends.admin}
    orders      ${clusterStack.frontends.orders}   sessions ${clusterStack.frontends.sessions}   webhook-dispatcher ${clusterStack.frontends.dispatcher}
    replicas    ${replicaPorts}`;
}

function observabilityLines(traces: TraceBackend | undefined, prometheus: LocalPrometheus | undefined): string {
  if (!traces || !prometheus) return '';
  return `
  traces        ${traces.zipkinUrl}/zipkin/   (${traces.description}: ${traces.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT})
                find a payment: ${traces.zipkinUrl}/zipkin/?annotationQuery=checkout.order_id%3D<order id>
  prometheus    ${prometheus.url}   (Prometheus ${prometheus.version}; rules: deploy/observability/prometheus-rules.yaml, ${prometheus.url}/alerts)`;
}

/** Ctrl-C (or SIGTERM): everything stopped in turn, services first, and the stack file removed. */
function stopOnSignals(parts: ReadonlyArray<{ stop(): Promise<void> } | undefined>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping services and engines`);
    for (const part of parts) await part?.stop();
    rmSync(STACK_FILE, { force: true });
    log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
