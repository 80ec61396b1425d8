import { randomBytes } from 'node:crypto';

export interface StackPorts {
  gateway: number;
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
  internalToken?: string;
  host?: string;
  /** Extra settings per service, e.g. a lower rate limit for one test file. */
  extraEnv?: Partial<Record<'gateway' | 'orders' | 'sessions' | 'dispatcher', Record<string, string>>>;
}

export interface StackEnvironment {
  gateway: Record<string, string>;
  orders: Record<string, string>;
  sessions: Record<string, string>;
  dispatcher: Record<string, string>;
  gatewayUrl: string;
  checkoutBaseUrl: string;
  adminToken: string;
  internalToken: string;
  processorWebhookSecret: string;
}

const secret = () => randomBytes(24).toString('base64url');

/**
 * The environment each service reads in the local stack, the end-to-end tests and the benchmarks: one
 * recipe, so the three run the services configured the same way (each service parses it with its own
 * zod schema, exactly as in production).
 */
export function stackEnvironment(options: StackEnvironmentOptions): StackEnvironment {
  const host = options.host ?? '127.0.0.1';
  const url = (port: number) => `http://${host}:${port}`;
  const adminToken = options.adminToken ?? secret();
  const internalToken = options.internalToken ?? secret();
  const processorWebhookSecret = secret();
  const gatewayUrl = url(options.ports.gateway);
  const checkoutBaseUrl = `${gatewayUrl}/checkout`;
  const prefix = options.namePrefix;
  const common = {
    LOG_LEVEL: options.logLevel ?? 'warn',
    HTTP_HOST: host,
    MONGODB_URL: options.mongoUrl,
    INTERNAL_TOKEN: internalToken,
    SHUTDOWN_GRACE_MS: '3000',
  };
  const kafka = { KAFKA_BROKERS: options.kafkaBrokers.join(','), TOPIC_PREFIX: prefix };
  // Sweeps find crash leftovers and due sessions; every 5 s spares the test machine's 2 cores. The fast paths
  // (publish right after a write, exact expiry on every read) don't wait for a sweep, and an expiry still fires
  // well within D21's 10 s.
  const sweeps = { OUTBOX_SWEEP_INTERVAL_MS: '5000' };
  return {
    gatewayUrl,
    checkoutBaseUrl,
    adminToken,
    internalToken,
    processorWebhookSecret,
    gateway: {
      ...common,
      PORT: String(options.ports.gateway),
      MONGODB_DATABASE: `${prefix}_gateway`,
      ORDERS_URL: url(options.ports.orders),
      SESSIONS_URL: url(options.ports.sessions),
      DISPATCHER_URL: url(options.ports.dispatcher),
      ADMIN_TOKEN: adminToken,
      ...options.extraEnv?.gateway,
    },
    orders: { ...common, ...kafka, ...sweeps, PORT: String(options.ports.orders), MONGODB_DATABASE: `${prefix}_orders`, ...options.extraEnv?.orders },
    sessions: {
      ...common,
      ...kafka,
      ...sweeps,
      EXPIRY_SWEEP_INTERVAL_MS: '4000',
      PORT: String(options.ports.sessions),
      MONGODB_DATABASE: `${prefix}_sessions`,
      ORDERS_URL: url(options.ports.orders),
      CHECKOUT_BASE_URL: checkoutBaseUrl,
      PROCESSOR_WEBHOOK_SECRET: processorWebhookSecret,
      CSRF_SECRET: secret(),
      ...options.extraEnv?.sessions,
    },
    dispatcher: {
      ...common,
      ...kafka,
      PORT: String(options.ports.dispatcher),
      MONGODB_DATABASE: `${prefix}_webhooks`,
      GATEWAY_URL: gatewayUrl,
      WEBHOOK_ALLOWED_NETWORKS: options.webhookAllowedNetworks ?? '127.0.0.0/8,::1/128',
      ...(options.webhookRetryDelaysMs !== undefined && { WEBHOOK_RETRY_DELAYS_MS: options.webhookRetryDelaysMs }),
      ...options.extraEnv?.dispatcher,
    },
  };
}
