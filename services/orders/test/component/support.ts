import { request } from 'undici';
import { internalCallers, newSecret } from '@checkout/testing';

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
 * reaches only such orders.
 */
export function internalCaller(baseUrl: () => string, scopeHeaders: Record<string, string>) {
  return async (
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    body?: unknown,
    options: { as?: keyof typeof CALLER_TOKENS; session?: string } = {},
  ) => {
    const caller = options.as ?? (SESSIONS_ONLY.test(path) || options.session ? 'sessions' : 'gateway');
    const response = await request(`${baseUrl()}${path}`, {
      method,
      headers: {
        ...scopeHeaders,
        'x-internal-token': CALLER_TOKENS[caller],
        ...(options.session !== undefined && { 'x-checkout-session-id': options.session }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: (await response.body.json()) as any };
  };
}
