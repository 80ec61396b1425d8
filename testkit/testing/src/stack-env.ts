import { randomBytes } from 'node:crypto';
import { generateLocalSecrets, internalCallersValue, type LocalInternalTokens } from '@checkout/config';

export interface StackPorts {
  gateway: number;
  /** The gateway's operators' listener (admin API, internal API, /metrics); 0: any free port (read it from start()). */
  gatewayAdmin?: number;
  orders: number;
  sessions: number;
  dispatcher: number;
}

export interface StackEnvironmentOptions {
  ports: StackPorts;
  mongoUrl: string;
  kafkaBrokers: string[];
  /** Prefix of every database and topic, so several stacks can share one pair of engines. */
  namePrefix: string;
  logLevel?: string;
  /** D33: the local stack and tests deliver webhooks to loopback receivers; production refuses them. */
  webhookAllowedNetworks?: string;
  webhookRetryDelaysMs?: string;
  adminToken?: string;
  /** Each calling service's own internal credential; generated when not given. */
  internalTokens?: Partial<InternalTokens>;
  host?: string;
  /** Extra settings per service, e.g. a lower rate limit for one test file. */
  extraEnv?: Partial<Record<'gateway' | 'orders' | 'sessions' | 'dispatcher', Record<string, string>>>;
}

/** The internal credential of each caller (orders calls nobody; the operators' replay job redelivers events). */
export type InternalTokens = LocalInternalTokens;

export interface StackEnvironment {
  gateway: Record<string, string>;
  orders: Record<string, string>;
  sessions: Record<string, string>;
  dispatcher: Record<string, string>;
  gatewayUrl: string;
  /** The gateway's operators' listener; empty when its port is chosen at start (gatewayAdmin 0). */
  adminUrl: string;
  checkoutBaseUrl: string;
  adminToken: string;
  internalTokens: InternalTokens;
  /** Signs the processor's payment notifications (sessions, D27). */
  processorWebhookSecret: string;
  /** Signs the processor's refund notifications (orders, D48): a secret of their own. */
  processorRefundWebhookSecret: string;
}

/** A random secret that every service's secret settings accept (32 characters of base64url). */
export const newSecret = (): string => randomBytes(24).toString('base64url');
/** An INTERNAL_CALLERS value: who may call a service, each by the SHA-256 of its token. */
export const internalCallers = internalCallersValue;

/**
 * The environment each service reads in the local stack, the end-to-end tests and the benchmarks: one
 * recipe, so the three run the services configured the same way (each service parses it with its own
 * zod schema, exactly as in production).
 */
export function stackEnvironment(options: StackEnvironmentOptions): StackEnvironment {
  const host = options.host ?? '127.0.0.1';
  const url = (port: number) => `http://${host}:${port}`;
  const generated = generateLocalSecrets({ ...(options.internalTokens && { tokens: options.internalTokens }) });
  const secrets = generated.env;
  const internalTokens = generated.tokens;
  const adminToken = options.adminToken ?? secrets.gateway.ADMIN_TOKEN ?? '';
  const processorWebhookSecret = secrets.sessions.PROCESSOR_WEBHOOK_SECRET ?? '';
  const processorRefundWebhookSecret = secrets.orders.PROCESSOR_REFUND_WEBHOOK_SECRET ?? '';
  const gatewayUrl = url(options.ports.gateway);
  const adminPort = options.ports.gatewayAdmin ?? 0;
  const adminUrl = adminPort === 0 ? '' : url(adminPort);
  const checkoutBaseUrl = `${gatewayUrl}/checkout`;
  return {
    gatewayUrl,
    checkoutBaseUrl,
    adminUrl,
    adminToken,
    internalTokens,
    processorWebhookSecret,
    processorRefundWebhookSecret,
    ...servicesEnvironment(options, {
      host,
      url,
      secrets,
      gatewayUrl,
      adminPort,
      adminUrl,
      adminToken,
      checkoutBaseUrl,
    }),
  };
}

/** The addresses and secrets of one stack, which its services' environments name. */
interface StackAddresses {
  host: string;
  url: (port: number) => string;
  secrets: ReturnType<typeof generateLocalSecrets>['env'];
  gatewayUrl: string;
  adminPort: number;
  /** Empty when the operators' listener's port is chosen at start. */
  adminUrl: string;
  adminToken: string;
  checkoutBaseUrl: string;
}

function servicesEnvironment(
  options: StackEnvironmentOptions,
  stack: StackAddresses,
): Pick<StackEnvironment, 'gateway' | 'orders' | 'sessions' | 'dispatcher'> {
  const { url, secrets, adminUrl } = stack;
  const prefix = options.namePrefix;
  const common = {
    LOG_LEVEL: options.logLevel ?? 'warn',
    HTTP_HOST: stack.host,
    MONGODB_URL: options.mongoUrl,
    SHUTDOWN_GRACE_MS: '3000',
  };
  const kafka = { KAFKA_BROKERS: options.kafkaBrokers.join(','), TOPIC_PREFIX: prefix };
  // Sweeps find crash leftovers and due sessions; every 5 s spares the test machine's 2 cores. The fast paths
  // (publish right after a write, exact expiry on every read) don't wait for a sweep, and an expiry still fires
  // well within D21's 10 s.
  const sweeps = { OUTBOX_SWEEP_INTERVAL_MS: '5000' };
  return {
    gateway: {
      ...common,
      PORT: String(options.ports.gateway),
      ADMIN_PORT: String(stack.adminPort),
      PUBLIC_BASE_URL: stack.gatewayUrl,
      ...secrets.gateway,
      MONGODB_DATABASE: `${prefix}_gateway`,
      ORDERS_URL: url(options.ports.orders),
      SESSIONS_URL: url(options.ports.sessions),
      DISPATCHER_URL: url(options.ports.dispatcher),
      ADMIN_TOKEN: stack.adminToken,
      ...options.extraEnv?.gateway,
    },
    orders: {
      ...common,
      ...kafka,
      ...sweeps,
      PORT: String(options.ports.orders),
      MONGODB_DATABASE: `${prefix}_orders`,
      ...secrets.orders,
      ...options.extraEnv?.orders,
    },
    sessions: {
      ...common,
      ...kafka,
      ...sweeps,
      EXPIRY_SWEEP_INTERVAL_MS: '4000',
      PORT: String(options.ports.sessions),
      MONGODB_DATABASE: `${prefix}_sessions`,
      ORDERS_URL: url(options.ports.orders),
      CHECKOUT_BASE_URL: stack.checkoutBaseUrl,
      ...secrets.sessions,
      ...options.extraEnv?.sessions,
    },
    dispatcher: {
      ...common,
      ...kafka,
      PORT: String(options.ports.dispatcher),
      MONGODB_DATABASE: `${prefix}_webhooks`,
      // Signing secrets come from the gateway's internal API, on its operators' listener.
      ...(adminUrl && { GATEWAY_URL: adminUrl }),
      ...secrets['webhook-dispatcher'],
      WEBHOOK_ALLOWED_NETWORKS: options.webhookAllowedNetworks ?? '127.0.0.0/8,::1/128',
      ...(options.webhookRetryDelaysMs !== undefined && { WEBHOOK_RETRY_DELAYS_MS: options.webhookRetryDelaysMs }),
      ...options.extraEnv?.dispatcher,
    },
  };
}

/**
 * Settings that a release before this code requires and today's code no longer reads, for the replicas of a stack
 * that run a release's build (the mixed-version rollout, `npm start -- --from`): orders verified refund
 * notifications with sessions' payment secret before they had a secret of their own (D48).
 */
export function releaseOnlyEnv(
  env: StackEnvironment,
  service: 'gateway' | 'orders' | 'sessions' | 'dispatcher',
): Record<string, string> {
  return service === 'orders' ? { PROCESSOR_WEBHOOK_SECRET: env.processorWebhookSecret } : {};
}
