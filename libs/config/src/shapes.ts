import { z } from 'zod';
import { env } from './env';
import { INTERNAL_CALLERS, type AcceptedCaller, type InternalCaller } from './internal-callers';
import { checkKafkaSecurity, kafkaConfigShape } from './kafka';
import { mongoUrl, secret } from './secrets';
import { telemetryConfigShape } from './telemetry';

/** Settings of every service. */
export const baseConfigShape = {
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level'),
  HTTP_HOST: z.string().default('0.0.0.0').describe('Address the HTTP server binds to'),
  MONGODB_URL: mongoUrl().describe('MongoDB connection string (a password in it must be a real secret)'),
  MONGODB_DATABASE: z.string().min(1).describe("Database holding this service's collections"),
  INTERNAL_CALLERS: env
    .list()
    .pipe(
      z
        .array(
          z
            .string()
            .regex(
              new RegExp(`^(${INTERNAL_CALLERS.join('|')}):[0-9a-f]{64}$`),
              `each entry must be <caller>:<sha256 hex of its INTERNAL_TOKEN>, caller one of ${INTERNAL_CALLERS.join(', ')}`,
            )
            .transform((entry): AcceptedCaller => {
              const at = entry.lastIndexOf(':');
              return { caller: entry.slice(0, at) as InternalCaller, tokenSha256: entry.slice(at + 1) };
            }),
        )
        .min(1),
    )
    .describe(
      "Who may call this service's internal API: comma-separated <caller>:<sha256 hex of that " +
        "caller's INTERNAL_TOKEN>; two entries for one caller while it rotates its token " +
        '(docs/operations.md). Each internal route admits only the callers it names.',
    ),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000).describe('Time allowed for in-flight work on shutdown'),
  SHUTDOWN_DRAIN_MS: env
    .nonNegativeInt(0)
    .describe(
      'On SIGTERM, how long /readyz answers 503 (and every answer says Connection: close) while ' +
        'the service still serves, before it stops listening: time for the load balancer or ' +
        'Kubernetes endpoints to take it out of rotation, like a preStop sleep. Set it above the ' +
        "load balancer's health-check interval × fall count; 0 stops at once",
    ),
  HTTP_HEADERS_TIMEOUT_MS: env
    .positiveInt(10_000)
    .describe(
      'A client must send all request headers within this time, or gets 408 and a closed connection (slow-client guard)',
    ),
  HTTP_REQUEST_TIMEOUT_MS: env
    .positiveInt(30_000)
    .describe(
      'A client must send the whole request, body included, within this time (at least HTTP_HEADERS_TIMEOUT_MS), or gets 408',
    ),
  ...telemetryConfigShape,
};

/** Settings of a service that calls other services' internal APIs. */
export const internalClientConfigShape = {
  INTERNAL_TOKEN: secret(32).describe(
    "This service's own credential, sent with every internal call it makes; the services it calls list its SHA-256 in their INTERNAL_CALLERS",
  ),
};

/** The listen options every service takes from its config (libs/http listen). */
export function httpTimeouts(config: { HTTP_HEADERS_TIMEOUT_MS: number; HTTP_REQUEST_TIMEOUT_MS: number }): {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
} {
  return { headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS };
}

export const commonConfigShape = { ...baseConfigShape, ...kafkaConfigShape };

/**
 * The schema of a service's settings: those every service shares (commonConfigShape, Kafka's checked together by
 * checkKafkaSecurity), then its own, which may override a shared one (its MONGODB_DATABASE default).
 */
export function serviceConfigSchema<S extends z.ZodRawShape>(shape: S) {
  return z
    .object(commonConfigShape)
    .extend(shape)
    .superRefine((config, ctx) =>
      // The shared Kafka settings are in every service's output; TypeScript cannot follow them through `S`.
      checkKafkaSecurity(config as unknown as z.output<z.ZodObject<typeof kafkaConfigShape>>, ctx),
    );
}

/**
 * The roles a process can take, named alike in every service so that one Deployment per role is one setting
 * away. Each service declares the roles it has; /healthz, /readyz and /metrics are served
 * whatever the roles, so Kubernetes can probe, and Prometheus scrape, a consumer-only pod too.
 */
export const roleSettings = {
  api: (what: string) =>
    env
      .boolean(true)
      .describe(`Role: serve ${what} from this process. /healthz, /readyz and /metrics are served whatever the roles.`),
  consumers: (what: string) => env.boolean(true).describe(`Role: run ${what} in this process`),
  sweepers: (what: string) => env.boolean(true).describe(`Role: run ${what} in this process`),
};

/** Settings of the services whose collections grow with traffic and are trimmed by a retention sweep. */
export const retentionConfigShape = {
  RETENTION_SWEEP_INTERVAL_MS: env
    .positiveInt(3_600_000)
    .describe(
      'How often the retention sweep deletes records past their retention (sweepers role); docs/operations.md lists what is kept how long',
    ),
};

/** Settings of the services that publish through a transactional outbox. */
export const outboxConfigShape = {
  OUTBOX_SWEEP_INTERVAL_MS: env
    .positiveInt(1_000)
    .describe(
      'How often the outbox relay looks for events a crash left unpublished (the fast path publishes right after each write)',
    ),
};
