import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Engines } from '@checkout/engines';
import type { StackEnvironment, StackEnvironmentOptions } from '@checkout/testing';
import { startClusterStack } from '../../scripts/lib/cluster-stack';
import { startProcessStack, type ServiceName } from '../../scripts/lib/process-stack';

/** The services a bench loads, as one process each or as replicas behind HAProxy (`--replicas N`). */
export interface BenchStack {
  env: StackEnvironment;
  replicas: number;
  /**
   * Where each running process of `service` serves /metrics (the gateway: its operators' listener), for CPU and RSS.
   */
  metricsUrls(service: ServiceName): string[];
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  /** The services one process each needs (replicas > 1 runs all four: the cluster is the whole stack). */
  services: readonly ServiceName[];
  replicas: number;
  extraEnv?: StackEnvironmentOptions['extraEnv'];
  /** The dispatcher's own test-mode budgets (the abuse bench measures them); lifted to live's otherwise. */
  budgets?: 'lifted' | 'dispatcher defaults';
}

/**
 * The gateway's limits a bench's load must not meet: it comes from one key and one address, and the per-key,
 * per-client and test-mode body-byte limits would answer most of it 429.
 */
export const UNLIMITED_GATEWAY = {
  RATE_LIMIT_PER_WINDOW: '1000000',
  RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
  CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
};

/**
 * Benches measure throughput from one test key, not the daily budgets (docs/webhooks.md): test mode's are lifted to
 * live's unless a bench sets its own.
 */
const UNBUDGETED = {
  BUDGET_TEST_EVENTS_PER_DAY: '5000000',
  BUDGET_TEST_DELIVERIES_PER_DAY: '40000000',
  BUDGET_TEST_BYTES_PER_DAY: String(32 * 1024 ** 3),
};

/**
 * What every bench's stack is, one process each or a cluster: on the bench's engines, its names prefixed `name_` and
 * a timestamp, its logs in one directory, the services from their bundles, logging warnings and errors only.
 */
export function benchStackBasics(engines: Engines, name: string) {
  return {
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: `${name}_${Date.now()}`,
    logDir: join(tmpdir(), 'checkout-bench'),
    runtime: 'bundle' as const,
    logLevel: 'warn',
  };
}

/**
 * Runs the services from their esbuild bundles, as the image does, so CPU and RSS are the deployed ones. With
 * replicas > 1 it is the local cluster of `npm start -- --replicas N` (scripts/lib/cluster-stack.ts): the load
 * goes through HAProxy, one more hop than with one replica, as it would through a Kubernetes Service.
 */
export async function startBenchStack(engines: Engines, options: BenchStackOptions): Promise<BenchStack> {
  const common = {
    ...benchStackBasics(engines, 'bench'),
    extraEnv: {
      ...options.extraEnv,
      dispatcher: { ...(options.budgets === 'dispatcher defaults' ? {} : UNBUDGETED), ...options.extraEnv?.dispatcher },
    },
  };
  if (options.replicas <= 1) {
    const stack = await startProcessStack({ ...common, services: options.services });
    return {
      env: stack.env,
      replicas: 1,
      metricsUrls: (service) => [service === 'gateway' ? stack.env.adminUrl : stack.urls[service]],
      stop: () => stack.stop(),
    };
  }
  const cluster = await startClusterStack({
    ...common,
    replicas: options.replicas,
    replicationFactor: engines.kafkaReplicationFactor,
    minInsyncReplicas: engines.kafkaCluster?.minInsyncReplicas ?? 1,
    log: (line) => process.stderr.write(`[cluster] ${line}\n`),
  });
  return {
    env: cluster.env,
    replicas: options.replicas,
    metricsUrls: (service) =>
      cluster.live(service).map((r) => `http://127.0.0.1:${r.service === 'gateway' ? r.adminPort : r.port}`),
    stop: () => cluster.stop(),
  };
}
