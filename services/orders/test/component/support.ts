import { request } from 'undici';
import { inject } from 'vitest';
import { createLogger } from '@checkout/logger';
import type { CommandCounter } from '@checkout/mongo/testing';
import { internalCallers, newSecret } from '@checkout/testing';
import { buildApp, type OrdersApp } from '../../src/app';
import { parseConfig } from '../../src/config';

/** The credentials of orders' two callers, and the INTERNAL_CALLERS that admits them. */
export const CALLER_TOKENS = { gateway: newSecret(), sessions: newSecret() };
export const INTERNAL_CALLERS = internalCallers(CALLER_TOKENS);
/** The processor's signing secret for refund notifications (D48), theirs alone. */
export const PROCESSOR_REFUND_WEBHOOK_SECRET = newSecret();

/** Routes only sessions may call (ORDERS_INTERNAL_ROUTES): applying a payment, closing an order to payments. */
const SESSIONS_ONLY = /^\/internal\/orders\/[^/]+\/(payments|close-payments)$/;

/**
 * Calls the orders service's internal API as the service that calls it in production would: sessions for the
 * payment routes, the gateway for the rest, each with its own credential, and the scope headers. `session`: as
 * sessions does for a checkout session's order (its id in x-checkout-session-id, sessions' credential): sessions
 * reaches only such orders. `headers`: more request headers (an `x-idempotency-record`, …).
 */
export function internalCaller(baseUrl: () => string, scopeHeaders: Record<string, string>) {
  return async (
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    body?: unknown,
    options: { as?: keyof typeof CALLER_TOKENS; session?: string; headers?: Record<string, string> } = {},
  ) => {
    const caller = options.as ?? (SESSIONS_ONLY.test(path) || options.session ? 'sessions' : 'gateway');
    const response = await request(`${baseUrl()}${path}`, {
      method,
      headers: {
        ...scopeHeaders,
        'x-internal-token': CALLER_TOKENS[caller],
        ...(options.session !== undefined && { 'x-checkout-session-id': options.session }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: (await response.body.json()) as any };
  };
}

/**
 * Orders in-process on port 0 against the run's engines, with its callers' credentials, on the topic prefix
 * `orders-<name>` and the database of that name in underscores (name: a label and the file's random suffix); `env`
 * adds or overrides settings. With a `counter`, its database commands are counted from the start.
 */
export async function startOrdersApp(
  name: string,
  env: Record<string, string> = {},
  counter?: CommandCounter,
): Promise<{ app: OrdersApp; url: string; prefix: string; kafkaBrokers: string[] }> {
  const { kafkaBrokers, mongoUrl } = inject('engines');
  const prefix = `orders-${name}`;
  const config = parseConfig({
    MONGODB_URL: mongoUrl,
    MONGODB_DATABASE: `orders_${name.replaceAll('-', '_')}`,
    KAFKA_BROKERS: kafkaBrokers.join(','),
    TOPIC_PREFIX: prefix,
    INTERNAL_CALLERS,
    PROCESSOR_REFUND_WEBHOOK_SECRET,
    PORT: '0',
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = buildApp(config, createLogger('orders', { level: 'silent' }));
  const { url } = await (counter ? counter.watch(() => app.start()) : app.start());
  return { app, url, prefix, kafkaBrokers };
}
