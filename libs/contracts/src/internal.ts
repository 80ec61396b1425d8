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
  /**
   * On a list call from the dashboard (D47): the caller shows "next page" links, not a total, so the owner skips
   * the count (a second pass over the matches; on the local engine a second scan of the collection) and fetches
   * one more than the page to tell whether another follows. The answer's pagination then has no `total`. Never
   * sent for merchants' API calls, whose pagination always carries it (D20).
   */
  withoutTotal: 'x-list-without-total',
} as const;

/**
 * An order as orders answered it, with the revision that orders it among other answers and order events:
 * the body of sessions' `PUT /internal/sessions/:sessionId/order` (D46).
 */
export const OrderSnapshot = z.strictObject({
  order: Order,
  revision: z.int().min(0),
});
export type OrderSnapshot = z.infer<typeof OrderSnapshot>;
