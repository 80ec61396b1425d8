import { z } from 'zod';
import { baseConfigShape, env, loadConfig } from '@checkout/config';

export const ConfigSchema = z.object({
  ...baseConfigShape,
  PORT: env.port(8080).describe('HTTP port of the public API, the hosted checkout page and the admin API'),
  MONGODB_DATABASE: baseConfigShape.MONGODB_DATABASE.default('gateway'),
  ORDERS_URL: env.url().describe('Internal base URL of the orders service'),
  SESSIONS_URL: env.url().describe('Internal base URL of the sessions service'),
  DISPATCHER_URL: env.url().describe('Internal base URL of the webhook-dispatcher events API'),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').describe('Operator token for the admin API (D38); never a merchant key'),
  RATE_LIMIT_PER_WINDOW: env.positiveInt(100).describe('Requests allowed per API key per window across GATEWAY_REPLICAS replicas (D43)'),
  RATE_LIMIT_WINDOW_MS: env.positiveInt(1_000).describe('Length of the rate-limit window'),
  GATEWAY_REPLICAS: env
    .positiveInt(1)
    .describe('Gateway replicas that share each key\'s rate limit: each admits ceil(RATE_LIMIT_PER_WINDOW / GATEWAY_REPLICAS) per key and window from memory (D43)'),
  BODY_LIMIT_BYTES: env.positiveInt(1024 * 1024).describe('Largest accepted JSON body (D7: 1 MiB)'),
  UPSTREAM_TIMEOUT_MS: env.positiveInt(10_000).describe('Deadline for a call to an internal service'),
  IDEMPOTENCY_SWEEP_INTERVAL_MS: env.positiveInt(60_000).describe('How often Idempotency-Key records older than 24 hours are deleted (D42; FerretDB has no TTL indexes)'),
  AUTH_CACHE_MS: z.coerce.number().int().min(0).default(2_000).describe('How long a verified API key, and an organization\'s checkout settings, are remembered; bounds how long a revoked key keeps working and how long another replica serves settings changed elsewhere'),
});

export type Config = Readonly<z.output<typeof ConfigSchema>>;

export function parseConfig(environment: Record<string, string | undefined>): Config {
  return loadConfig('gateway', ConfigSchema, environment);
}
