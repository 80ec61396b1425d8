import { z } from 'zod';
import {
  checkKafkaSecurity,
  commonConfigShape,
  env,
  internalClientConfigShape,
  loadConfig,
  retentionConfigShape,
  roleSettings,
} from '@checkout/config';
import { parseNetworks } from './domain/rules/address-policy';
import type { SchedulerLimits } from './domain/engine/lanes';
import type { UsageCounts } from './domain/engine/records';

const delayList = env
  .list()
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^\d+$/, 'must be a whole number of milliseconds')
          .transform(Number)
          .pipe(z.number().int().positive()),
      )
      .length(4, 'must list exactly 4 delays (one per retry tier, D31)'),
  )
  .refine(
    (delays: number[]) => delays.every((d, i) => i === 0 || d > (delays[i - 1] ?? 0)),
    'delays must strictly increase (D40)',
  );

const cidrList = env.list().superRefine((cidrs, ctx) => {
  try {
    parseNetworks(cidrs);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
  }
});

const MiB = 1024 * 1024;
const DAY_MS = 24 * 3_600_000;

/**
 * One daily budget of one mode (docs/webhooks.md, "Budgets"): past it the gateway refuses the merchant's API writes
 * that record events with 429 QUOTA_EXCEEDED until the next UTC midnight; what the platform records on its own
 * (payments, processor notifications, expiries) is never refused.
 */
const budget = (mode: 'test' | 'live', what: string, fallback: number) =>
  env
    .positiveInt(fallback)
    .describe(
      `${what} one organization may make in ${mode} mode in one UTC day before its API writes that record events ` +
        'are refused (429 QUOTA_EXCEEDED)',
    );

export const ConfigSchema = z
  .object({
    ...commonConfigShape,
    ...internalClientConfigShape,
    ...retentionConfigShape,
    PORT: env.port(4004).describe('HTTP port of the internal events API (and /healthz, /readyz, /metrics)'),
    MONGODB_DATABASE: commonConfigShape.MONGODB_DATABASE.default('webhooks'),
    API_ENABLED: roleSettings.api('the internal events API (/internal/events)'),
    CONSUMERS_ENABLED: roleSettings.consumers('the session-events and retry-tier consumers, which deliver webhooks'),
    SWEEPERS_ENABLED: roleSettings.sweepers(
      'the recovery sweep, which delivers what a crashed process held and publishes unsent dead letters',
    ),
    SESSION_EVENTS_PARTITIONS: env
      .positiveInt(12)
      .describe('Partitions of the session events topic, used only if this service must create it'),
    WEBHOOK_RETRY_PARTITIONS: env
      .positiveInt(6)
      .describe(
        'Partitions of each retry tier topic and the dead-letter topic, used only if this service must create them',
      ),
    WEBHOOK_RETRY_DELAYS_MS: delayList
      .default([10_000, 60_000, 600_000, 3_600_000])
      .describe(
        'Delays before attempts 2..5, comma-separated, strictly increasing (D31: 10 s, 1 min, 10 min, 1 h); each gets up to ±10 % jitter (D40)',
      ),
    EVENT_SEARCH_MAX_TIME_MS: env
      .positiveInt(5_000)
      .describe(
        "The database's deadline (maxTimeMS) for one `GET /v0/events` filtered by deliveryStatus or " +
          'endpointId; past it the request answers 503 SERVICE_UNAVAILABLE, which the gateway does not retry. ' +
          "Keep it under the gateway's " +
          'UPSTREAM_TIMEOUT_MS (10 s), so no search outlives the request that asked for it',
      ),
    WEBHOOK_TIMEOUT_MS: env
      .positiveInt(5_000)
      .describe('Time allowed for one whole attempt: connect, headers and the response snippet (spec: 5 s)'),
    WEBHOOK_MAX_ATTEMPTS: z.coerce
      .number()
      .int()
      .min(1)
      .max(5)
      .default(5)
      .describe('Attempts per delivery before it fails and goes to the dead-letter topic (spec: at most 5)'),
    WEBHOOK_ALLOWED_NETWORKS: cidrList
      .default([])
      .describe(
        'DANGEROUS — loosens SSRF protection (D33). Comma-separated CIDRs (e.g. 127.0.0.1/32,10.1.0.0/16) that ' +
          'webhooks MAY reach even though they are loopback, private, link-local, unique-local, CGNAT or ' +
          'otherwise internal. Empty (the default, and the only safe production value) refuses every internal ' +
          'address, cloud metadata included. Only for local development and tests.',
      ),
    WEBHOOK_DENIED_NETWORKS: cidrList
      .default([])
      .describe(
        'Comma-separated CIDRs (e.g. 34.118.224.0/20) that webhooks never reach, beside the internal ranges ' +
          "D33 always refuses: public address space that is this deployment's own, such as a Kubernetes " +
          "cluster's service range (GKE's default is public). Checked when an endpoint's URL names an IP " +
          'literal, and on the address every attempt connects to; wins over WEBHOOK_ALLOWED_NETWORKS',
      ),
    WEBHOOK_MAX_CONCURRENCY_PER_HOST: env
      .positiveInt(8)
      .describe('Attempts in flight at once to one destination host:port'),
    WEBHOOK_MAX_CONCURRENCY_PER_ADDRESS: env
      .positiveInt(16)
      .describe(
        'Attempts in flight at once to one resolved address and port, whatever host names led there (names that ' +
          'all resolve to one victim share this cap; each name still has WEBHOOK_MAX_CONCURRENCY_PER_HOST). Above ' +
          "the per-host cap, since unrelated merchants' hosts can share a CDN's or a load balancer's address",
      ),
    WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: env
      .positiveInt(4)
      .describe(
        "Attempts in flight at once to one merchant's webhook endpoint (D50), within its host's " +
          "WEBHOOK_MAX_CONCURRENCY_PER_HOST: an endpoint that hangs leaves the rest of its host's slots to the " +
          "merchant's other endpoints there",
      ),
    WEBHOOK_ENDPOINT_HOSTS_MAX: env
      .positiveInt(8)
      .describe(
        'Distinct destination host names the webhook endpoints of one organization and mode may name together ' +
          '(of the 16 endpoints D50 allows); a create or a PATCH of the url that would name one more is 400 ' +
          'WEBHOOK_ENDPOINT_LIMIT_REACHED. Bounds how many hosts one test key makes the dispatcher POST to',
      ),
    WEBHOOK_ENDPOINT_DISABLE_AFTER_MS: env
      .positiveInt(3 * 24 * 3_600_000)
      .describe(
        'A webhook endpoint whose every attempt has failed for this long is disabled, with its reason (D50: 3 days)',
      ),
    WEBHOOK_ENDPOINT_CACHE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(5_000)
      .describe(
        "How long an attempt uses a webhook endpoint's secrets and state as last read, per replica (fan-out " +
          "always reads endpoints fresh): a change made through another replica reaches this one's attempts " +
          'within this time',
      ),
    WEBHOOK_MAX_IN_FLIGHT: env
      .positiveInt(256)
      .describe('Attempts in flight at once in this process, all hosts together'),
    WEBHOOK_MAX_QUEUED_PER_HOST: env
      .positiveInt(2_000)
      .describe(
        'Attempts waiting in memory for one host (or one webhook endpoint); beyond this they stay in the database and the recovery sweep picks them up later',
      ),
    WEBHOOK_ORGANIZATION_SHARE: z.coerce
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe(
        'Share of WEBHOOK_MAX_IN_FLIGHT and of WEBHOOK_MAX_QUEUED that one organization may hold, its test and ' +
          'live modes together (fairness): one merchant whose endpoints all hang, in either mode or both, ties ' +
          'up at most this share of the attempts in flight, and its attempts beyond its share of the queue are ' +
          'stored pending and taken back once its queue has drained to half, so its backlog never pauses the ' +
          "consumers every merchant shares. 1 turns fairness off (one merchant's burst then waits in Kafka " +
          'instead)',
      ),
    WEBHOOK_LIVE_RESERVED_SHARE: z.coerce
      .number()
      .min(0)
      .lt(1)
      .default(0.25)
      .describe(
        'Share of WEBHOOK_MAX_IN_FLIGHT and of WEBHOOK_MAX_QUEUED that test-mode attempts can never take, all ' +
          'test-mode merchants together: test traffic never delays live',
      ),
    WEBHOOK_MAX_QUEUED: env
      .positiveInt(5_000)
      .describe(
        'Attempts held in memory in total, waiting for their turn or sent and being recorded; beyond this the ' +
          'consumers pause and new events wait in Kafka (backpressure; bounds the RSS)',
      ),
    WEBHOOK_RESPONSE_SNIPPET_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(1024)
      .describe('Bytes of each response body that are read and stored with the attempt'),
    WEBHOOK_CLAIM_TTL_MS: env
      .positiveInt(30_000)
      .describe(
        'How long a delivery held by a process (stored for its first attempt, queued or in flight) is ' +
          'protected from the recovery sweep; after a crash its work is redone once this passes. Must exceed ' +
          'WEBHOOK_TIMEOUT_MS.',
      ),
    WEBHOOK_RECOVERY_INTERVAL_MS: env
      .positiveInt(5_000)
      .describe('Interval of the recovery sweep that re-dispatches pending deliveries nobody holds (crash safety)'),
    GATEWAY_URL: env
      .url()
      .optional()
      .describe(
        "Internal base URL of the gateway, read for organizations' webhook signing secrets (D35). Unset: webhooks are never signed.",
      ),
    WEBHOOK_EVENTS_RETENTION_MS: z.coerce
      .number()
      .int()
      .min(15 * 24 * 3_600_000, 'must keep events longer than the 14 days POST /v0/events/recover reaches back (D44)')
      .default(30 * DAY_MS)
      .describe(
        'How long live-mode events and their finished deliveries (with every attempt) are kept for the events API ' +
          '(D34); pending deliveries are never deleted. Test mode: WEBHOOK_TEST_EVENTS_RETENTION_MS',
      ),
    WEBHOOK_TEST_EVENTS_RETENTION_MS: z.coerce
      .number()
      .int()
      .min(DAY_MS, 'must keep test-mode events at least a day')
      .default(7 * DAY_MS)
      .describe(
        'How long test-mode events and their finished deliveries are kept (7 days); live mode keeps them for ' +
          'WEBHOOK_EVENTS_RETENTION_MS. In test mode POST /v0/events/recover reaches back only this far',
      ),
    BUDGET_TEST_EVENTS_PER_DAY: budget('test', 'Events recorded', 10_000),
    BUDGET_TEST_DELIVERIES_PER_DAY: budget('test', 'Webhook deliveries created', 50_000),
    BUDGET_TEST_BYTES_PER_DAY: budget('test', 'Bytes of events and deliveries stored', 50 * MiB),
    BUDGET_LIVE_EVENTS_PER_DAY: budget('live', 'Events recorded', 5_000_000),
    BUDGET_LIVE_DELIVERIES_PER_DAY: budget('live', 'Webhook deliveries created', 40_000_000),
    BUDGET_LIVE_BYTES_PER_DAY: budget('live', 'Bytes of events and deliveries stored', 32 * 1024 * MiB),
    BUDGET_GAUGE_INTERVAL_MS: env
      .positiveInt(30_000)
      .describe(
        'How often the sweepers count the organizations at 80 % or more of a daily budget (the gauge ' +
          "webhook_tenants_near_budget): one indexed read of the day's counts each time",
      ),
    SIGNING_SECRET_CACHE_MS: env
      .positiveInt(30_000)
      .describe('How long a signing secret read from the gateway is cached per organization and mode'),
  })
  .refine((c) => c.WEBHOOK_CLAIM_TTL_MS > c.WEBHOOK_TIMEOUT_MS, {
    path: ['WEBHOOK_CLAIM_TTL_MS'],
    message: 'must be greater than WEBHOOK_TIMEOUT_MS',
  })
  .superRefine(checkKafkaSecurity);

export type Config = Readonly<z.output<typeof ConfigSchema>>;

export function parseConfig(environment: Record<string, string | undefined>): Config {
  return loadConfig('webhook-dispatcher', ConfigSchema, environment);
}

/** Each mode's daily budgets. */
export function budgetLimits(config: Config): Record<'test' | 'live', UsageCounts> {
  return {
    test: {
      events: config.BUDGET_TEST_EVENTS_PER_DAY,
      deliveries: config.BUDGET_TEST_DELIVERIES_PER_DAY,
      bytes: config.BUDGET_TEST_BYTES_PER_DAY,
    },
    live: {
      events: config.BUDGET_LIVE_EVENTS_PER_DAY,
      deliveries: config.BUDGET_LIVE_DELIVERIES_PER_DAY,
      bytes: config.BUDGET_LIVE_BYTES_PER_DAY,
    },
  };
}

/**
 * The scheduler's bounds from the configured totals and shares (a share is never less than one, and test mode keeps
 * one).
 */
export function schedulerLimits(config: Config): SchedulerLimits {
  const share = (total: number, fraction: number) => Math.max(1, Math.floor(total * fraction));
  const reserved = (total: number) => Math.min(total - 1, Math.floor(total * config.WEBHOOK_LIVE_RESERVED_SHARE));
  return {
    maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
    maxPerHost: config.WEBHOOK_MAX_CONCURRENCY_PER_HOST,
    maxPerAddress: config.WEBHOOK_MAX_CONCURRENCY_PER_ADDRESS,
    maxPerDestination: Math.min(config.WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT, config.WEBHOOK_MAX_CONCURRENCY_PER_HOST),
    maxQueuedPerHost: config.WEBHOOK_MAX_QUEUED_PER_HOST,
    maxQueued: config.WEBHOOK_MAX_QUEUED,
    maxInFlightPerLane: share(config.WEBHOOK_MAX_IN_FLIGHT, config.WEBHOOK_ORGANIZATION_SHARE),
    maxQueuedPerLane: share(config.WEBHOOK_MAX_QUEUED, config.WEBHOOK_ORGANIZATION_SHARE),
    liveReservedInFlight: reserved(config.WEBHOOK_MAX_IN_FLIGHT),
    liveReservedQueued: reserved(config.WEBHOOK_MAX_QUEUED),
  };
}
