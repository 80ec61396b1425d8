import { z } from 'zod';
import { Order } from './orders';

/**
 * Headers of the internal HTTP API that more than one service writes or reads: each is named here once, so a
 * producer and its readers cannot drift apart.
 */
export const INTERNAL_API_HEADERS = {
  /**
   * On every answer of orders that carries an order: the revision its write stored, so that a service keeping a
   * copy of the order (sessions) tells a newer snapshot from an older one, also against the order events. A
   * header, not a body field: the gateway forwards bodies to merchants.
   */
  orderRevision: 'x-order-revision',
  /**
   * On an order create from sessions: the checkout session the order belongs to; on orders' answers about such
   * an order: the same id, so that the gateway can bring the session's copy up to date before it answers a
   * merchant's write of the order (D46).
   */
  checkoutSessionId: 'x-checkout-session-id',
} as const;

/**
 * The revision in an answer's INTERNAL_API_HEADERS.orderRevision (orders writes it with `String(revision)`), or
 * null when it is missing or not a non-negative integer: the one reader of the header (gateway, sessions).
 */
export function orderRevisionOf(headers: Readonly<Record<string, string | string[] | undefined>>): number | null {
  const header = headers[INTERNAL_API_HEADERS.orderRevision];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

/**
 * An order as orders answered it, with the revision that orders it among other answers and order events:
 * the body of sessions' `PUT /internal/sessions/:sessionId/order` (D46).
 */
export const OrderSnapshot = z.strictObject({
  order: Order,
  revision: z.int().min(0),
});
export type OrderSnapshot = z.infer<typeof OrderSnapshot>;
