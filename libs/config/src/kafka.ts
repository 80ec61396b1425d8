import { z } from 'zod';
import { env } from './env';
import { secret } from './secrets';

/** Settings of the services that use Kafka. */
export const kafkaConfigShape = {
  KAFKA_BROKERS: env
    .list()
    .pipe(z.array(z.string().regex(/^[^:]+:\d+$/, 'each broker must be host:port')).min(1))
    .describe('Comma-separated Kafka bootstrap brokers (host:port)'),
  KAFKA_CLIENT_ID: z.string().min(1).optional().describe('Kafka client id; defaults to the service name'),
  TOPIC_PREFIX: z
    .string()
    .default('')
    .describe('Prefix for every Kafka topic and consumer group (isolation of tests and environments)'),
  KAFKA_SASL_MECHANISM: z
    .enum(['none', 'scram-sha-256', 'scram-sha-512'])
    .default('none')
    .describe(
      'How this service authenticates to the brokers: none, or SASL SCRAM with ' +
        'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD. Production uses scram-sha-512 with a user ' +
        'per service, whose ACLs allow only its topics and groups (docs/operations.md)',
    ),
  KAFKA_SASL_USERNAME: z.string().min(1).optional().describe('SASL user of this service (required with SCRAM)'),
  KAFKA_SASL_PASSWORD: secret(16).optional().describe('SASL password of this service (required with SCRAM)'),
  KAFKA_TLS: env
    .boolean(false)
    .describe(
      'Connect to the brokers over TLS (SASL_SSL / SSL listeners). Required with SASL SCRAM unless KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY',
    ),
  KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY: env
    .boolean(false)
    .describe(
      'Allows SASL SCRAM over a plaintext connection: only where the network below already ' +
        'encrypts and authenticates every connection (a service mesh with mutual TLS to the ' +
        'brokers). SCRAM proves the password without sending it, but leaves every message ' +
        'readable and an authenticated connection open to takeover by anyone on the path',
    ),
  KAFKA_TLS_CA_FILE: z
    .string()
    .default('')
    .describe(
      "PEM file of the CA that signed the brokers' certificates, when it is not one the system trusts; empty: the system's CAs",
    ),
};

/**
 * SCRAM needs both its user and its password; without SCRAM neither may be set (a likely misconfiguration). And
 * SCRAM goes over TLS (the second audit: it was allowed without): it proves the password, but a plaintext session
 * carries every message (customers' data in session events) in clear and can be taken over once authenticated.
 */
export function checkKafkaSecurity(
  config: {
    KAFKA_SASL_MECHANISM: string;
    KAFKA_SASL_USERNAME?: string | undefined;
    KAFKA_SASL_PASSWORD?: string | undefined;
    KAFKA_TLS: boolean;
    KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY: boolean;
  },
  ctx: z.RefinementCtx,
): void {
  const scram = config.KAFKA_SASL_MECHANISM !== 'none';
  if (scram && !config.KAFKA_TLS && !config.KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY)
    ctx.addIssue({
      code: 'custom',
      path: ['KAFKA_TLS'],
      message:
        `must be true with KAFKA_SASL_MECHANISM=${config.KAFKA_SASL_MECHANISM} (or KAFKA_SASL_WITHOUT_TLS_DANGEROUSLY=true ` +
        `where the network below encrypts)`,
    });
  for (const key of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'] as const) {
    if (scram && config[key] === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `is required with KAFKA_SASL_MECHANISM=${config.KAFKA_SASL_MECHANISM}`,
      });
    if (!scram && config[key] !== undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: 'is set but KAFKA_SASL_MECHANISM is none' });
  }
}

/** What libs/kafka's createKafka needs to reach and authenticate to the brokers, from a service's config. */
export function kafkaConnection(config: {
  KAFKA_BROKERS: string[];
  KAFKA_SASL_MECHANISM: 'none' | 'scram-sha-256' | 'scram-sha-512';
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
  KAFKA_TLS: boolean;
  KAFKA_TLS_CA_FILE: string;
}): {
  brokers: string[];
  sasl?: { mechanism: 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  tls?: { caFile?: string };
} {
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = config;
  return {
    brokers: config.KAFKA_BROKERS,
    ...(mechanism !== 'none' &&
      username !== undefined &&
      password !== undefined && { sasl: { mechanism, username, password } }),
    ...(config.KAFKA_TLS && { tls: config.KAFKA_TLS_CA_FILE === '' ? {} : { caFile: config.KAFKA_TLS_CA_FILE } }),
  };
}
