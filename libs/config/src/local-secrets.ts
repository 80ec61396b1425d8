import { randomBytes } from 'node:crypto';
import { internalCallersValue } from './internal-callers';

/** The services and jobs whose secrets a local stack generates (generateLocalSecrets). */
export type LocalSecretsOwner = 'gateway' | 'orders' | 'sessions' | 'webhook-dispatcher' | 'dead-letter-replay';

/** The internal credential of each caller: the services that call others, and the operators' replay job. */
export interface LocalInternalTokens {
  gateway: string;
  sessions: string;
  dispatcher: string;
  deadLetterReplay: string;
}

/**
 * Every secret setting of a stack, freshly generated, with each INTERNAL_CALLERS naming exactly the callers that
 * service's routes admit: what `npm start`, the tests and the laptop compose stack (its first run)
 * use, so that no stack anywhere runs on a known token. Production generates its own (docs/operations.md).
 */
export function generateLocalSecrets(options: { tokens?: Partial<LocalInternalTokens>; random?: () => string } = {}): {
  tokens: LocalInternalTokens;
  env: Record<LocalSecretsOwner, Record<string, string>>;
} {
  const random = options.random ?? (() => randomBytes(24).toString('base64url'));
  // One processor, a secret per kind of notification: payments (sessions, D27) and refunds (orders, D48), so that a
  // leak of sessions' secret settles no refund.
  const processorWebhookSecret = random();
  const tokens: LocalInternalTokens = {
    gateway: random(),
    sessions: random(),
    dispatcher: random(),
    deadLetterReplay: random(),
    ...options.tokens,
  };
  return {
    tokens,
    env: {
      gateway: {
        ADMIN_TOKEN: random(),
        INTERNAL_TOKEN: tokens.gateway,
        INTERNAL_CALLERS: internalCallersValue({ 'webhook-dispatcher': tokens.dispatcher }),
      },
      orders: {
        INTERNAL_CALLERS: internalCallersValue({ gateway: tokens.gateway, sessions: tokens.sessions }),
        PROCESSOR_REFUND_WEBHOOK_SECRET: random(),
      },
      sessions: {
        INTERNAL_TOKEN: tokens.sessions,
        INTERNAL_CALLERS: internalCallersValue({ gateway: tokens.gateway }),
        PROCESSOR_WEBHOOK_SECRET: processorWebhookSecret,
        CSRF_SECRET: random(),
        ID_DERIVATION_SECRET: random(),
      },
      'webhook-dispatcher': {
        INTERNAL_TOKEN: tokens.dispatcher,
        INTERNAL_CALLERS: internalCallersValue({
          gateway: tokens.gateway,
          'dead-letter-replay': tokens.deadLetterReplay,
        }),
      },
      'dead-letter-replay': { INTERNAL_TOKEN: tokens.deadLetterReplay },
    },
  };
}
