// `npm start`: real engines (provisioned and cached on first use), the four services as processes, a demo
// organization with test and live keys; prints where everything is. Ctrl-C stops it all.
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startEngines } from '@checkout/engines';
import { AdminClient } from '@checkout/testing';
import { Checkout } from '@checkout/sdk';
import { countFlag, startClusterStack } from './lib/cluster-stack';
import { startPrometheus, startTraceBackend, type LocalPrometheus, type TraceBackend } from './lib/observability';
import { portIsFree, startProcessStack, type ProcessStack } from './lib/process-stack';
import { ensureReleaseBundles, fromFlag, resolveRelease } from './lib/releases';

export const STACK_FILE = '.stack.json';
const log = (line: string) => process.stderr.write(`[start] ${line}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const args = process.argv.slice(2);
  // `--replicas N` runs N processes of each service behind HAProxy, `--brokers 3` a three-broker Kafka.
  const replicas = countFlag(args, 'replicas', 1, 20);
  const brokers = countFlag(args, 'brokers', 1, 5);
  const cluster = replicas > 1 || brokers > 1;
  // `--from <release>` runs a recorded release (`previous`: the latest one) from its own bundles, built
  // once per commit under ~/.cache/checkout-releases/ (scripts/lib/releases.ts).
  const fromSpec = fromFlag(args);
  const release = fromSpec === undefined ? undefined : resolveRelease(fromSpec);
  const from = release ? await ensureReleaseBundles(release, log) : undefined;
  if (release && from)
    log(
      `services from ${release.recorded ? `release ${release.version}` : 'commit'} ${release.commit.slice(0, 12)}: ${from.bundleDir}${from.built ? ` (built in ${from.seconds.toFixed(1)} s)` : ' (cached)'}`,
    );
  // A trace store with a UI (Zipkin, which the services send their spans to) and Prometheus with the rules.
  const observability = args.includes('--observability');
  const engines = await startEngines({
    log: (line) => log(`engines: ${line}`),
    ...(brokers > 1 && { kafkaBrokers: brokers }),
  });
  log(`engines ready: ${engines.description}`);
  let stopping = false;
  const logDir = join(tmpdir(), `checkout-stack-${process.pid}`);
  const preferred = Number(process.env.PORT ?? 8080);
  let traces: TraceBackend | undefined;
  if (observability) {
    traces = await startTraceBackend({ logDir: join(logDir, 'observability'), log }).catch(async (err: unknown) => {
      await engines.stop();
      throw err;
    });
    log(`traces: ${traces.description}`);
  }
  // Every span of every service goes to Zipkin (100 %: parentbased_traceidratio with the default ratio 1).
  const otel = traces?.env;
  const stackOptions = {
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: 'local',
    logLevel: process.env.LOG_LEVEL ?? 'info',
    logDir,
    gatewayPort: (await portIsFree(preferred)) ? preferred : undefined,
    webhookRetryDelaysMs: process.env.WEBHOOK_RETRY_DELAYS_MS,
    ...(otel && { extraEnv: { gateway: otel, orders: otel, sessions: otel, dispatcher: otel } }),
  };
  const clusterStack = cluster
    ? await startClusterStack({
        ...stackOptions,
        replicas,
        replicationFactor: engines.kafkaReplicationFactor,
        minInsyncReplicas: engines.kafkaCluster?.minInsyncReplicas ?? 1,
        ...(from && { from }),
        log,
      }).catch(async (err: unknown) => {
        await traces?.stop();
        await engines.stop();
        throw err;
      })
    : undefined;
  const stack: Pick<ProcessStack, 'env' | 'stop'> =
    clusterStack ??
    (await startProcessStack({ ...stackOptions, ...(from && { bundleDir: from.bundleDir }) }).catch(
      async (err: unknown) => {
        await traces?.stop();
        await engines.stop();
        throw err;
      },
    ));
  let prometheus: LocalPrometheus | undefined;
  if (observability) {
    // Each service's /metrics (the gateway's on its operators' listener); on the cluster, through its frontend,
    // so each scrape reads one replica in turn.
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
    prometheus = await startPrometheus({ targets, logDir: join(logDir, 'observability'), log });
  }
  const observabilityLines =
    traces && prometheus
      ? `
  traces        ${traces.zipkinUrl}/zipkin/   (${traces.description}: ${traces.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT})
                find a payment: ${traces.zipkinUrl}/zipkin/?annotationQuery=checkout.order_id%3D<order id>
  prometheus    ${prometheus.url}   (Prometheus ${prometheus.version}; rules: deploy/observability/prometheus-rules.yaml, ${prometheus.url}/alerts)`
      : '';
  const loadBalancer = clusterStack
    ? `
  load balancer ${clusterStack.haproxy.version}: ${replicas} replica${replicas === 1 ? '' : 's'} of each service behind it (health checks on /readyz)
    gateway     ${clusterStack.frontends.gateway}   admin ${clusterStack.frontends.admin}
    orders      ${clusterStack.frontends.orders}   sessions ${clusterStack.frontends.sessions}   webhook-dispatcher ${clusterStack.frontends.dispatcher}
    replicas    ${(['gateway', 'orders', 'sessions', 'webhook-dispatcher'] as const)
      .map(
        (s) =>
          `${s} ${clusterStack
            .live(s)
            .map((r) => `:${r.port}`)
            .join(' ')}`,
      )
      .join(';  ')}`
    : '';
  const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
  const demo = await admin.createOrganizationWithKeys('Demo Coffee Co');
  // Read by `npm run admin` and `npm run cli` (D45) so that they work against this stack without flags; it
  // holds local secrets only and is git-ignored.
  writeFileSync(
    STACK_FILE,
    JSON.stringify(
      {
        gatewayUrl: stack.env.gatewayUrl,
        adminUrl: stack.env.adminUrl,
        adminToken: stack.env.adminToken,
        organizationId: demo.organizationId,
        testKey: demo.testKey,
      },
      null,
      2,
    ),
    { mode: 0o600 },
  );

  // D47: a ready login link to the demo organization's test-mode dashboard (single use, 5 minutes).
  const dashboardLink = await new Checkout(demo.testKey, {
    baseUrl: stack.env.gatewayUrl,
  }).dashboard.loginLinks.create();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const running = release
    ? `\n  release       ${release.version}${release.recorded ? '' : ' (not a recorded release)'}, commit ${release.commit}`
    : '';
  console.log(`
Orders and hosted checkout — local stack ready in ${seconds} s
  engines       ${engines.description}${running}${loadBalancer}
  gateway       ${stack.env.gatewayUrl}            (try: curl ${stack.env.gatewayUrl}/readyz)
  admin         ${stack.env.adminUrl}            (operators' listener: admin API, /internal, /metrics; never exposed)
  checkout      ${stack.env.checkoutBaseUrl}/<session id>
  OpenAPI       ${stack.env.gatewayUrl}/v0/openapi.json
  dashboard     ${dashboardLink.url}
                (test mode; single use, valid 5 minutes; a new one: npm run cli -- dashboard)
  organization  ${demo.organizationId} (Demo Coffee Co)
  test key      ${demo.testKey}
  live key      ${demo.liveKey}
  admin token   ${stack.env.adminToken}   (npm run admin -- help)
  service logs  ${logDir}${observabilityLines}

  curl -s ${stack.env.gatewayUrl}/v0/checkout/sessions -H "Authorization: Bearer ${demo.testKey}" \\
    -H 'Content-Type: application/json' -d '{"items":[{"name":"Latte","quantity":1,"unitPrice":450}]}'

  npm run cli -- listen --forward-to http://localhost:3000/webhooks    # relay new events to your local endpoint
  npm run cli -- trigger checkout.session.completed                   # create and pay a test session

Press Ctrl-C to stop everything.`);

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping services and engines`);
    await stack.stop();
    await prometheus?.stop();
    await traces?.stop();
    await engines.stop();
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
