import type { Middleware } from 'koa';
import type { Registry } from 'prom-client';
import type { BuildInfo } from '@checkout/config';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

/**
 * How long a readiness answer is reused. /healthz and /readyz answer before every limit (a probe must never be
 * rate limited), so each /readyz running its checks (a database ping, a broker metadata call) let anyone who
 * reaches the port make one database command per request. Now the checks run at most once a second per
 * listener, and requests meanwhile share that answer (one running check, however many requests wait for it).
 * The promise: /readyz tells the dependencies' state as of at most READINESS_CACHE_MS before, and a stopping
 * service answers 503 at once (the shutdown flag is never cached). Load balancers and kubelets probe every
 * second or more, so they see no difference.
 */
export const READINESS_CACHE_MS = 1_000;

/**
 * /healthz says the process is alive (liveness: restart me if this fails); /readyz says its database and
 * broker answer (readiness: send me traffic). /metrics is Prometheus text.
 */
/**
 * `full`: the detailed /readyz (each check's error, and the build: version and commit) and /metrics, for probes
 * and Prometheus inside the cluster. `public`: on a listener the internet reaches (the gateway's public one),
 * /readyz says ready or not and nothing about why (dependency errors name hosts and versions; the build names
 * ours), and /metrics is not served.
 */
export type OperationalExposure = 'full' | 'public';

export function operationalEndpoints(options: {
  checks: ReadinessCheck[];
  registry: Registry;
  isShuttingDown?: () => boolean;
  exposure?: OperationalExposure;
  /** This process's build: `full` answers name it, so a rolling deploy shows which replica runs what. */
  build?: BuildInfo;
  /** For tests: the clock the readiness cache reads. */
  now?: () => number;
}): Middleware {
  const exposure = options.exposure ?? 'full';
  const build =
    exposure === 'full' && options.build ? { version: options.build.version, commit: options.build.commit } : {};
  const now = options.now ?? (() => performance.now());
  let cached: { at: number; results: Promise<{ name: string; error: string | null }[]> } | undefined;
  const readiness = () => {
    const at = now();
    if (!cached || at - cached.at >= READINESS_CACHE_MS)
      cached = {
        at,
        results: Promise.all(options.checks.map(async (c) => ({ name: c.name, error: await runCheck(c) }))),
      };
    return cached.results;
  };
  return async (ctx, next) => {
    // HEAD is GET without the body (RFC 9110 §9.3.2): the same status and headers, which Koa sends without a body.
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      await next();
      return;
    }
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/readyz') {
      if (options.isShuttingDown?.()) {
        ctx.status = 503;
        ctx.body = { status: 'shutting_down', ...build };
        return;
      }
      const results = await readiness();
      const failed = results.filter((r) => r.error !== null);
      ctx.status = failed.length === 0 ? 200 : 503;
      ctx.body = {
        status: failed.length === 0 ? 'ready' : 'not_ready',
        ...build,
        ...(exposure === 'full' && {
          checks: Object.fromEntries(results.map((r) => [r.name, r.error === null ? 'ok' : r.error])),
        }),
      };
      return;
    }
    if (ctx.path === '/metrics' && exposure === 'full') {
      ctx.type = options.registry.contentType;
      ctx.body = await options.registry.metrics();
      return;
    }
    await next();
  };
}

async function runCheck(check: ReadinessCheck): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}
