import { z } from 'zod';
import { baseConfigShape, env, internalClientConfigShape, loadConfig, secret } from '@checkout/config';
import { DASHBOARD_SESSION_TTL_MS, LOGIN_LINK_TTL_MS } from '@checkout/contracts';
import { parseNetworks } from './domain/client-address';

/** A comma-separated list of addresses and CIDRs; a typo stops start-up with the key's name. */
const networks = () =>
  env.list().superRefine((entries, ctx) => {
    try {
      parseNetworks(entries);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
    }
  });

/** AUTH_CACHE_MS may not exceed this: it is how long a key revoked on another replica may keep working. */
export const AUTH_CACHE_MS_MAX = 30_000;

export const ConfigSchema = z.object({
  ...baseConfigShape,
  ...internalClientConfigShape,
  PORT: env
    .port(8080)
    .describe(
      'HTTP port of the public listener: the /v0 API, the hosted checkout page, /healthz and a bare /readyz. The only port a Service or Ingress exposes',
    ),
  ADMIN_PORT: env
    .port(8081)
    .describe(
      "HTTP port of the operators' listener: the admin API (/admin/*), the internal API " +
        '(/internal/*), /metrics and the detailed /readyz. Reached only from inside the cluster ' +
        '(NetworkPolicy), never exposed by an Ingress',
    ),
  PUBLIC_BASE_URL: env
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .describe(
      "The API's public base URL as merchants reach it, e.g. https://api.example.com: the OpenAPI document's servers. Never taken from a request's Host header",
    ),
  MONGODB_DATABASE: baseConfigShape.MONGODB_DATABASE.default('gateway'),
  ORDERS_URL: env.url().describe('Internal base URL of the orders service'),
  SESSIONS_URL: env.url().describe('Internal base URL of the sessions service'),
  DISPATCHER_URL: env.url().describe('Internal base URL of the webhook-dispatcher events API'),
  ADMIN_TOKEN: secret(32).describe('Operator token for the admin API (D38); never a merchant key'),
  RATE_LIMIT_PER_WINDOW: env
    .positiveInt(100)
    .describe('Requests allowed per API key per window across GATEWAY_REPLICAS replicas (D43)'),
  RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: env
    .positiveInt(64 * 1024)
    .describe(
      'Bytes of request bodies a test-mode API key may send per window across GATEWAY_REPLICAS replicas (live keys: ' +
        'only RATE_LIMIT_PER_WINDOW); past them 429 RATE_LIMITED. A body without Content-Length counts as ' +
        'BODY_LIMIT_BYTES',
    ),
  RATE_LIMIT_WINDOW_MS: env.positiveInt(1_000).describe('Length of the rate-limit window'),
  GATEWAY_REPLICAS: env
    .positiveInt(1)
    .describe(
      "Gateway replicas that share each key's rate limit: each admits ceil(RATE_LIMIT_PER_WINDOW / GATEWAY_REPLICAS) per key and window from memory (D43)",
    ),
  BODY_LIMIT_BYTES: env.positiveInt(1024 * 1024).describe('Largest accepted JSON body (D7: 1 MiB)'),
  UPSTREAM_TIMEOUT_MS: env.positiveInt(10_000).describe('Deadline for a call to an internal service'),
  BUDGET_USAGE_CACHE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000, 'must be at most 1000 ms: it bounds how far past a budget a merchant gets on each replica')
    .default(1_000)
    .describe(
      "How long an organization and mode's usage of its daily budgets, read from the webhook dispatcher, is " +
        'used per replica before the next write that records events reads it again (at most 1000 ms). A ' +
        'merchant may pass a budget by at most its rate limit times this, on all replicas together',
    ),
  BUDGET_CHECK_TIMEOUT_MS: env
    .positiveInt(250)
    .describe(
      "How long a write that records events waits for its budgets' usage; past it, or when the webhook " +
        'dispatcher fails, the write goes on unchecked (fail open: an outage of the counts never refuses a write)',
    ),
  IDEMPOTENCY_SWEEP_INTERVAL_MS: env
    .positiveInt(60_000)
    .describe('How often Idempotency-Key records older than 24 hours are deleted (D42; FerretDB has no TTL indexes)'),
  AUTH_CACHE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(
      AUTH_CACHE_MS_MAX,
      `must be at most ${AUTH_CACHE_MS_MAX} ms: it bounds how long a revoked key keeps working on other replicas`,
    )
    .default(2_000)
    .describe(
      `How long a verified API key, and an organization's checkout settings, are remembered (at ` +
        `most ${AUTH_CACHE_MS_MAX} ms); bounds how long a key revoked on another replica keeps working ` +
        `there (on the replica that revoked it: not at all) and how long another replica serves settings ` +
        `changed elsewhere`,
    ),
  UNKNOWN_KEY_CACHE_MS: env
    .positiveInt(60_000)
    .describe(
      'How long a key id that matches no key, or a dashboard cookie that matches no session ' +
        '(D47), is remembered as unknown, so that guessing costs no database read per guess. A ' +
        'key or session created meanwhile is never refused by it: both get new random ids',
    ),
  CLIENT_RATE_LIMIT_PER_WINDOW: env
    .positiveInt(1_000)
    .describe(
      'Requests allowed per client address per RATE_LIMIT_WINDOW_MS across GATEWAY_REPLICAS ' +
        'replicas, checked before authentication (unknown keys, the hosted page, the admin API). ' +
        "The address is the peer's, or X-Forwarded-For's nearest untrusted hop when the peer is " +
        'in TRUSTED_PROXIES',
    ),
  CHECKOUT_RATE_LIMIT_PER_WINDOW: env
    .positiveInt(50)
    .describe(
      'Requests to the hosted checkout page (/checkout/*) allowed per client address per RATE_LIMIT_WINDOW_MS across GATEWAY_REPLICAS replicas',
    ),
  ADMIN_AUTH_FAILURES_PER_MINUTE: env
    .positiveInt(10)
    .describe(
      'Admin API requests with a wrong or missing operator token allowed per client address per ' +
        'minute on each replica; beyond it every admin request from that address is 429 until the ' +
        'minute passes',
    ),
  ADMIN_AUTH_FAILURES_EXEMPT: networks()
    .default([])
    .describe(
      'Comma-separated CIDRs of peers whose wrong operator tokens are not limited ' +
        '(ADMIN_AUTH_FAILURES_PER_MINUTE). Default none: every peer is limited by its own TCP ' +
        "address (X-Forwarded-For is never read on the operators' listener). Loopback is not " +
        'exempt by default: under a service mesh every connection arrives from the sidecar on ' +
        'loopback, so exempting it exempts everyone. Name a peer only where its address is shared ' +
        "by operators and reachable by nobody else (the local cluster's load balancer)",
    ),
  DASHBOARD_LINK_TTL_MS: env
    .positiveInt(LOGIN_LINK_TTL_MS)
    .describe(
      'How long a dashboard login link may be opened (D47: 5 minutes). Configurable so tests can expire one without waiting',
    ),
  DASHBOARD_SESSION_TTL_MS: env
    .positiveInt(DASHBOARD_SESSION_TTL_MS)
    .describe(
      'How long a dashboard browser session lasts after its login link is opened (D47: 12 hours); revoking its API key ends it sooner',
    ),
  TRUSTED_PROXIES: networks()
    .default([])
    .describe(
      'Comma-separated CIDRs of the proxies in front of the gateway (the ingress controller, ' +
        'the load balancer) whose X-Forwarded-For is believed. Empty: the peer address is the ' +
        'client',
    ),
});

export type Config = Readonly<z.output<typeof ConfigSchema>>;

export function parseConfig(environment: Record<string, string | undefined>): Config {
  return loadConfig('gateway', ConfigSchema, environment);
}
