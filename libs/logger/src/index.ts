import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

interface LogContext {
  requestId: string;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs fn with a request id that every log line written inside it carries. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return context.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}

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
];

export function createLogger(service: string, options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  const loggerOptions: LoggerOptions = {
    name: service,
    level: options.level ?? 'info',
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { requestId };
    },
  };
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions);
}

/** Masks a card number to its last four digits; the only form in which a PAN may appear anywhere. */
export function maskCardNumber(cardNumber: string): string {
  const digits = cardNumber.replace(/\D/g, '');
  return digits.length >= 4 ? `•••• ${digits.slice(-4)}` : '••••';
}
