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
  REPORT_LEASE_MS: env
    .positiveInt(30_000)
    .describe(
      "How long a report run's claim holds without renewal (renewed every third of it while the file is written): a " +
        "crashed runner's report is taken over by another replica this long after its last renewal (D52)",
    ),
  REPORT_POLL_INTERVAL_MS: env
    .positiveInt(5_000)
    .describe(
      'How often a sweeper replica looks for report runs to take (one whose replica crashed, or that failed and is ' +
        'retried) and deletes reports past their 30 days (D52)',
    ),
  BALANCE_SWEEP_INTERVAL_MS: env
    .positiveInt(5_000)
    .describe(
      'How often the ledger sweep counts balance transactions left uncounted (sweepers role; D52, docs/books.md)',
    ),
  API_ENABLED: roleSettings.api('the internal orders API'),
  CONSUMERS_ENABLED: roleSettings.consumers(
    'the ledger consumer (group orders.balance-lines), which records each money movement as a balance transaction',
  ),
  SWEEPERS_ENABLED: roleSettings.sweepers(
    'the outbox sweep (events a crash left unpublished), the ledger sweep, the migrations, and the report runs poll ' +
      'and retention',
  ),
});

export type Config = Readonly<z.output<typeof ConfigSchema>>;

export function parseConfig(environment: Record<string, string | undefined>): Config {
  return loadConfig('orders', ConfigSchema, environment);
}
