import { z } from 'zod';
import { HttpUrl } from './common';
import { Order } from './orders';
import { PAYMENT_METHODS, PaymentMethod } from './sessions';

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
   * From the gateway to sessions: the organization's checkout settings (D22, D26), base64url JSON of
   * CheckoutSettingsHeader (encodeCheckoutSettingsHeader / decodeCheckoutSettingsHeader). Sessions snapshots
   * them when it creates a session.
   */
  checkoutSettings: 'x-checkout-settings',
  /**
   * On a list call from the dashboard (D47): the caller shows "next page" links, not a total, so the owner skips
   * the count (a second pass over the matches; on the local engine a second scan of the collection) and fetches
   * one more than the page to tell whether another follows. The answer's pagination then has no `total`. Never
   * sent for merchants' API calls, whose pagination always carries it (D20).
   */
  withoutTotal: 'x-list-without-total',
} as const;

/** What INTERNAL_API_HEADERS.checkoutSettings carries. */
export const CheckoutSettingsHeader = z.object({
  organizationName: z.string().max(200),
  defaultCallbackUrl: HttpUrl.nullable(),
  enabledPaymentMethods: z.array(PaymentMethod).max(PAYMENT_METHODS.length),
});
export type CheckoutSettingsHeader = z.infer<typeof CheckoutSettingsHeader>;

/** The header's value: base64url of the settings' JSON (a header value cannot carry arbitrary JSON text). */
export function encodeCheckoutSettingsHeader(settings: CheckoutSettingsHeader): string {
  return Buffer.from(JSON.stringify(settings), 'utf8').toString('base64url');
}

/** The settings in a header value, or why it cannot be read: not base64url JSON, or JSON of another shape. */
export function decodeCheckoutSettingsHeader(
  header: string,
): { ok: true; value: CheckoutSettingsHeader } | { ok: false; error: 'not base64url JSON' | 'malformed' } {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, error: 'not base64url JSON' };
  }
  const parsed = CheckoutSettingsHeader.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: 'malformed' };
}

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
