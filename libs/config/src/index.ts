import { z } from 'zod';

// Config is parsed once, at start, into a frozen typed object. Only a service's main.ts hands process.env in.

export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig<S extends z.ZodType<Record<string, unknown>>>(
  service: string,
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(root)';
      const given = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
      return given === undefined ? `${key}: ${issue.message}` : `${key}=${JSON.stringify(redactValue(key, given))}: ${issue.message}`;
    });
    throw new ConfigError(service, problems);
  }
  return Object.freeze(result.data);
}

function redactValue(key: string, value: string): string {
  return /SECRET|TOKEN|PASSWORD|KEY/i.test(key) ? '<redacted>' : value;
}

// Building blocks shared by every service's schema. Each carries .describe() so the config reference
// (docs/config-reference.md) can be generated from the schemas themselves.

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

export const env = {
  port: (def: number) => z.coerce.number().int().min(0).max(65535).default(def),
  boolean: (def: boolean) => booleanFromEnv.default(def),
  positiveInt: (def: number) => z.coerce.number().int().positive().default(def),
  url: () => z.url({ protocol: /^https?$/ }),
  list: () =>
    z
      .string()
      .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean)),
};

/** Settings of every service. */
export const baseConfigShape = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level'),
  HTTP_HOST: z.string().default('0.0.0.0').describe('Address the HTTP server binds to'),
  MONGODB_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL').describe('MongoDB connection string'),
  MONGODB_DATABASE: z.string().min(1).describe("Database holding this service's collections"),
  INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters').describe('Shared secret that authenticates calls between services: sent with every internal call, and accepted'),
  INTERNAL_TOKENS_ACCEPTED: env
    .list()
    .pipe(z.array(z.string().min(16, 'each token must be at least 16 characters')))
    .default([])
    .describe('Comma-separated further internal tokens accepted but never sent: the next or the previous INTERNAL_TOKEN during a rotation (docs/operations.md)'),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000).describe('Time allowed for in-flight work on shutdown'),
  HTTP_HEADERS_TIMEOUT_MS: env
    .positiveInt(10_000)
    .describe('A client must send all request headers within this time, or gets 408 and a closed connection (slow-client guard)'),
  HTTP_REQUEST_TIMEOUT_MS: env
    .positiveInt(30_000)
    .describe('A client must send the whole request, body included, within this time (at least HTTP_HEADERS_TIMEOUT_MS), or gets 408'),
};

/** The listen options every service takes from its config (libs/http listen). */
export function httpTimeouts(config: { HTTP_HEADERS_TIMEOUT_MS: number; HTTP_REQUEST_TIMEOUT_MS: number }): { headersTimeoutMs: number; requestTimeoutMs: number } {
  return { headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS };
}

/** Every internal token a service accepts: the one it sends, then those of a rotation in progress. */
export function acceptedInternalTokens(config: { INTERNAL_TOKEN: string; INTERNAL_TOKENS_ACCEPTED: readonly string[] }): readonly string[] {
  return [config.INTERNAL_TOKEN, ...config.INTERNAL_TOKENS_ACCEPTED];
}

/** Settings of the services that use Kafka. */
export const kafkaConfigShape = {
  KAFKA_BROKERS: env.list().pipe(z.array(z.string().regex(/^[^:]+:\d+$/, 'each broker must be host:port')).min(1)).describe('Comma-separated Kafka bootstrap brokers (host:port)'),
  KAFKA_CLIENT_ID: z.string().min(1).optional().describe('Kafka client id; defaults to the service name'),
  TOPIC_PREFIX: z.string().default('').describe('Prefix for every Kafka topic and consumer group (isolation of tests and environments)'),
};

export const commonConfigShape = { ...baseConfigShape, ...kafkaConfigShape };

/**
 * The roles a process can take, named alike in every service so that one Deployment per role is one setting
 * away (style.md §1). Each service declares the roles it has; /healthz, /readyz and /metrics are served
 * whatever the roles, so Kubernetes can probe, and Prometheus scrape, a consumer-only pod too.
 */
export const roleSettings = {
  api: (what: string) =>
    env.boolean(true).describe(`Role: serve ${what} from this process. /healthz, /readyz and /metrics are served whatever the roles.`),
  consumers: (what: string) => env.boolean(true).describe(`Role: run ${what} in this process`),
  sweepers: (what: string) => env.boolean(true).describe(`Role: run ${what} in this process`),
};

/** Settings of the services whose collections grow with traffic and are trimmed by a retention sweep. */
export const retentionConfigShape = {
  RETENTION_SWEEP_INTERVAL_MS: env
    .positiveInt(3_600_000)
    .describe('How often the retention sweep deletes records past their retention (sweepers role); docs/operations.md lists what is kept how long'),
};

/** Settings of the services that publish through a transactional outbox. */
export const outboxConfigShape = {
  OUTBOX_SWEEP_INTERVAL_MS: env.positiveInt(1_000).describe('How often the outbox relay looks for events a crash left unpublished (the fast path publishes right after each write)'),
};
