import { z } from 'zod';
import { HttpUrl } from './common';
import { brandShape } from './checkout-settings';
import { Order, OrderResponse } from './orders';
import { PAYMENT_METHODS, PaymentMethod } from './sessions';

/**
 * Headers of the internal HTTP API, each named here once, so a producer and its readers cannot drift apart:
 * libs/http's InternalClient writes the first five on every call and its internal auth reads them.
 */
export const INTERNAL_API_HEADERS = {
  /** The calling service's credential (libs/config's INTERNAL_TOKEN, checked against INTERNAL_CALLERS). */
  token: 'x-internal-token',
  /** The tenant of the call: the organization's id and the mode (libs/contracts' Scope). */
  organization: 'x-organization-id',
  mode: 'x-mode',
  /** The request id of the merchant's or operator's request the call serves, carried into every log line. */
  requestId: 'x-request-id',
  /**
   * The request's D42 Idempotency-Key, as the gateway's opaque record id (one per API key and key). An owner
   * derives the ids of what the request creates from it, so a retry after an unknown outcome (a 5xx, a lost
   * answer: the gateway keeps no 5xx) meets what the first try created instead of creating it again.
   */
  idempotencyRecord: 'x-idempotency-record',
  /**
   * With idempotencyRecord, when the Idempotency-Key's life began (ISO time): its first use, kept by a retry after a
   * 5xx, new once the key expired (D42's 24 hours) and is used again. An owner that derives ids from the record
   * derives them from this too, so a key reused after its expiry makes a new refund and never answers the old one.
   * Absent from a gateway of an earlier release (the owner then derives from the record alone).
   */
  idempotencySince: 'x-idempotency-since',
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
  /**
   * The build version of the caller on every internal request (InternalClient), and of the callee on every answer
   * to one (libs/http's base app; libs/config buildInfo): while a rolling deploy runs two versions side by side,
   * each side can tell which one it talks to (`internal_requests_total`, the mixed-version rollout soak). Never
   * leaves the platform: the gateway's pass-through drops every x-internal-* header both ways.
   */
  version: 'x-internal-version',
  /**
   * On a 503 whose work the database stopped at its deadline (maxTimeMS: a bounded search, D51), set by libs/http's
   * error handler. InternalClient does not ask such a call again: a retry would repeat the work the deadline stopped,
   * past the caller's own timeout, while the first attempt's answer already says what happened. An answer without
   * it (a callee of an earlier release) is retried as any 503. Dropped by the gateway's pass-through, as every
   * x-internal-* header is.
   */
  deadlineExceeded: 'x-internal-deadline-exceeded',
} as const;

/**
 * What INTERNAL_API_HEADERS.checkoutSettings carries. The brand fields are optional: a gateway of the release
 * before them sends none while a rolling deploy runs both.
 */
export const CheckoutSettingsHeader = z.object({
  organizationName: z.string().max(200),
  defaultCallbackUrl: HttpUrl.nullable(),
  enabledPaymentMethods: z.array(PaymentMethod).max(PAYMENT_METHODS.length),
  displayName: brandShape.displayName.optional(),
  brandColor: brandShape.brandColor.optional(),
  logoUrl: brandShape.logoUrl.optional(),
  defaultLocale: brandShape.defaultLocale.optional(),
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

// ---------------------------------------------------------------------------------------------------------
// Orders' internal API: what orders answers and what its callers (sessions, the gateway's admin API) parse, with
// these schemas on both sides. Orders' order answers are OrderResponse (orders.ts) with the revision header.

/** The body of `POST /internal/orders/:orderId/payments`: the payment as sessions hands it to orders (D27). */
export const ApplyPaymentRequest = z.strictObject({
  paymentId: z.string().min(1).max(100),
  /** Omitted: the amount still due when the payment is applied (D29's default for the test helper). */
  amount: z.number().int().min(1).optional(),
  method: z.string().min(1).max(40),
});
export type ApplyPaymentRequest = z.infer<typeof ApplyPaymentRequest>;

/** Whether orders applied the payment now or had applied it before (the same payment id: a replay, D27). */
export const APPLY_PAYMENT_OUTCOMES = ['applied', 'already_applied'] as const;
export type ApplyPaymentOutcome = (typeof APPLY_PAYMENT_OUTCOMES)[number];
export const AppliedPaymentResponse = OrderResponse.extend({ outcome: z.enum(APPLY_PAYMENT_OUTCOMES) });
export type AppliedPaymentResponse = z.infer<typeof AppliedPaymentResponse>;

/** A location of the organization and mode (D38, operators' reference data). */
export const Location = z.object({ id: z.string(), name: z.string(), createdAt: z.string() });
export type Location = z.infer<typeof Location>;
export const LocationsResponse = z.object({ locations: z.array(Location) });
export type LocationsResponse = z.infer<typeof LocationsResponse>;
export const LocationResponse = z.object({ location: Location });
export type LocationResponse = z.infer<typeof LocationResponse>;

export const PAYMENT_DESTINATION_STATUSES = ['active', 'inactive', 'deleted'] as const;
/** Where stablecoin payments of the organization and mode go (D38); the hosted page reads its state. */
export const PaymentDestinationView = z.object({
  id: z.string(),
  address: z.string(),
  network: z.string(),
  status: z.enum(PAYMENT_DESTINATION_STATUSES),
  verified: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PaymentDestinationView = z.infer<typeof PaymentDestinationView>;
export const PaymentDestinationsResponse = z.object({ paymentDestinations: z.array(PaymentDestinationView) });
export type PaymentDestinationsResponse = z.infer<typeof PaymentDestinationsResponse>;
export const PaymentDestinationResponse = z.object({ paymentDestination: PaymentDestinationView });
export type PaymentDestinationResponse = z.infer<typeof PaymentDestinationResponse>;
