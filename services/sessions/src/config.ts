import { z } from 'zod';
import {
  commonConfigShape,
  env,
  internalClientConfigShape,
  loadConfig,
  outboxConfigShape,
  roleSettings,
  secret,
  serviceConfigSchema,
} from '@checkout/config';

export const ConfigSchema = serviceConfigSchema({
  ...internalClientConfigShape,
  ...outboxConfigShape,
  PORT: env.port(4003).describe('HTTP port of the internal sessions API and the hosted checkout page'),
  MONGODB_DATABASE: commonConfigShape.MONGODB_DATABASE.default('sessions'),
  ORDERS_URL: env.url().describe('Internal base URL of the orders service, e.g. http://orders:4002'),
  CHECKOUT_BASE_URL: env
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .describe('Public base URL of the hosted payment page; a session url is <CHECKOUT_BASE_URL>/<sessionId> (D22)'),
  SESSION_EVENTS_PARTITIONS: env
    .positiveInt(12)
    .describe('Partitions of the checkout.session.events topic when this service creates it'),
  EXPIRY_SWEEP_INTERVAL_MS: env
    .positiveInt(1_000)
    .describe('How often the expiry sweeper looks for due pending sessions (D21)'),
  PROCESSOR_WEBHOOK_SECRET: secret(32).describe(
    'HMAC-SHA256 secret that signs live payment-processor notifications (x-processor-signature, D27)',
  ),
  CSRF_SECRET: secret(32).describe('HMAC secret for the hosted page CSRF tokens'),
  ID_DERIVATION_SECRET: secret(32).describe(
    'HMAC secret from which the ids of what a request with an Idempotency-Key creates are ' +
      'derived (D42: a retry meets what the first try made). Secret, so nobody who knows an ' +
      "organization and a key can compute a session's id",
  ),
  API_ENABLED: roleSettings.api('the internal sessions API and the hosted checkout page'),
  CONSUMERS_ENABLED: roleSettings.consumers(
    "the order-events consumer, which keeps each session's copy of its order current (completed, cancelled, edited)",
  ),
  SWEEPERS_ENABLED: roleSettings.sweepers('the expiry sweeper (D21) and the outbox sweep'),
});

export type Config = Readonly<z.output<typeof ConfigSchema>>;

export function parseConfig(environment: Record<string, string | undefined>): Config {
  return loadConfig('sessions', ConfigSchema, environment);
}
