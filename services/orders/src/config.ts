import { z } from 'zod';
import {
  commonConfigShape,
  env,
  loadConfig,
  outboxConfigShape,
  roleSettings,
  secret,
  serviceConfigSchema,
} from '@checkout/config';

export const ConfigSchema = serviceConfigSchema({
  ...outboxConfigShape,
  PORT: env.port(4002).describe('HTTP port of the internal orders API'),
  MONGODB_DATABASE: commonConfigShape.MONGODB_DATABASE.default('orders'),
  ORDER_EVENTS_PARTITIONS: env
    .positiveInt(6)
    .describe('Partitions of the orders.events and orders.public-events topics when this service creates them'),
  PROCESSOR_REFUND_WEBHOOK_SECRET: secret(32).describe(
    "HMAC-SHA256 secret that signs the live processor's refund notifications " +
      "(x-processor-signature, D48), and nothing else: sessions' PROCESSOR_WEBHOOK_SECRET " +
      'settles no refund',
  ),
  API_ENABLED: roleSettings.api('the internal orders API'),
  SWEEPERS_ENABLED: roleSettings.sweepers('the outbox sweep, which publishes events a crash left unpublished'),
});

export type Config = Readonly<z.output<typeof ConfigSchema>>;

export function parseConfig(environment: Record<string, string | undefined>): Config {
  return loadConfig('orders', ConfigSchema, environment);
}
