import { pino, type Logger, type LoggerOptions } from 'pino';
import { activeTraceIds, currentRequestId } from '@checkout/telemetry';

export type { Logger } from 'pino';
// The request id lives in the same storage as the trace context (libs/telemetry's ambient-context.ts).
export { currentRequestId, withRequestId } from '@checkout/telemetry';

// Secrets never reach a log line: API keys, tokens, card data and webhook signing secrets are censored
// wherever they appear in the logged object.
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-internal-token"]',
  'req.headers["x-admin-token"]',
  'headers.authorization',
  'apiKey',
  'secret',
  '*.secret',
  'signingSecret',
  '*.signingSecret',
  'cardNumber',
  '*.cardNumber',
  'cvc',
  '*.cvc',
  'token',
  '*.token',
  'password',
  '*.password',
  // What the list above missed. Checkout settings carry signing secrets; config objects carry tokens.
  'webhookSigningSecret',
  '*.webhookSigningSecret',
  'webhookSigningSecrets',
  '*.webhookSigningSecrets',
  'previousWebhookSigningSecret',
  '*.previousWebhookSigningSecret',
  'adminToken',
  '*.adminToken',
  'internalToken',
  '*.internalToken',
  'ADMIN_TOKEN',
  '*.ADMIN_TOKEN',
  'INTERNAL_TOKEN',
  '*.INTERNAL_TOKEN',
  'PROCESSOR_WEBHOOK_SECRET',
  '*.PROCESSOR_WEBHOOK_SECRET',
  'PROCESSOR_REFUND_WEBHOOK_SECRET',
  '*.PROCESSOR_REFUND_WEBHOOK_SECRET',
  'CSRF_SECRET',
  '*.CSRF_SECRET',
  'ID_DERIVATION_SECRET',
  '*.ID_DERIVATION_SECRET',
  'KAFKA_SASL_PASSWORD',
  '*.KAFKA_SASL_PASSWORD',
  'req.headers["x-processor-signature"]',
  // D47: the dashboard's bearer tokens (login link, session cookie, CSRF token) and where they travel.
  'headers.cookie',
  'req.headers.cookie',
  'headers["set-cookie"]',
  'res.headers["set-cookie"]',
  'loginUrl',
  '*.loginUrl',
  'sessionToken',
  '*.sessionToken',
  'csrfToken',
  '*.csrfToken',
];

/**
 * `scheme://user:password@host` → `scheme://user:[redacted]@host`, wherever a URL with credentials appears in a value.
 */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*):[^\s@/]+@/gi;

export function redactUrlCredentials(text: string): string {
  return text.includes('@') ? text.replace(URL_CREDENTIALS, '$1:[redacted]@') : text;
}

/** Redacts URL credentials in every string of a logged object (a few levels deep: config and error objects). */
function withoutUrlCredentials(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactUrlCredentials(value);
  if (depth >= 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => withoutUrlCredentials(item, depth + 1));
  if (value instanceof Error) return value;
  let changed: Record<string, unknown> | undefined;
  for (const [key, inner] of Object.entries(value)) {
    const clean = withoutUrlCredentials(inner, depth + 1);
    if (clean !== inner) (changed ??= { ...(value as Record<string, unknown>) })[key] = clean;
  }
  return changed ?? value;
}

/**
 * pino's error serializer, then URL credentials redacted in every string it produced: message, stack, causes and
 * the error's own fields. Errors are serialized after the `log` formatter runs, which leaves them as they are, so a
 * driver's "connect failed for mongodb://user:password@host" reached the line whole.
 */
function serializeError(err: unknown): unknown {
  return withoutUrlCredentials(err instanceof Error ? pino.stdSerializers.err(err) : err);
}

export function createLogger(
  service: string,
  options: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  const loggerOptions: LoggerOptions = {
    name: service,
    level: options.level ?? 'info',
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => withoutUrlCredentials(object) as Record<string, unknown>,
    },
    serializers: { err: serializeError, error: serializeError },
    hooks: {
      // The message itself, and any string argument interpolated into it. `logger.error(err)` with no message takes
      // the error's message as its own: it is passed here explicitly so that it is redacted too.
      logMethod(args, method) {
        const [first, second] = args as unknown[];
        const withMessage =
          first instanceof Error && typeof second !== 'string' ? [first, first.message, ...args.slice(1)] : args;
        method.apply(
          this,
          withMessage.map((arg) => (typeof arg === 'string' ? redactUrlCredentials(arg) : arg)) as Parameters<
            typeof method
          >,
        );
      },
    },
    // The request id, and the trace and span a line was written in (while tracing is on): a log line leads to
    // its trace in the trace store, and a trace's span to its log lines (docs/operations.md, "Traces").
    mixin: () => {
      const requestId = currentRequestId();
      const ids = activeTraceIds();
      if (ids === undefined) return requestId === undefined ? {} : { requestId };
      return requestId === undefined ? ids : { requestId, ...ids };
    },
  };
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions);
}

/** Masks a card number to its last four digits; the only form in which a PAN may appear anywhere. */
export function maskCardNumber(cardNumber: string): string {
  const digits = cardNumber.replace(/\D/g, '');
  return digits.length >= 4 ? `•••• ${digits.slice(-4)}` : '••••';
}
