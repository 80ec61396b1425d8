import { z } from 'zod';
import { Timestamp, paginationQueryShape, Pagination } from './common';
import { CheckoutSession } from './sessions';
import { Order } from './orders';
import { WebhookEvent } from './event-catalog';
import { Delivery } from './events-api';
import { EventId } from './ids';

// D47: the merchant dashboard. The login link is the only public API of it; the rest are the owners' internal
// read routes the gateway's dashboard pages call (sessions list, an order's payments, the charts' aggregates).

/** D47: how long a login link may be opened, and how long the browser session it starts lasts. */
export const LOGIN_LINK_TTL_MS = 5 * 60 * 1000;
export const DASHBOARD_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export const LoginLinkResponse = z
  .object({
    url: z
      .string()
      .describe(
        "Open it in a browser, once, within 5 minutes: it starts a dashboard session for this key's organization and mode (D47).",
      ),
    expiresAt: Timestamp.describe('After this the link is refused.'),
  })
  .meta({ id: 'LoginLinkResponse', description: 'A single-use dashboard login link (D47).' });
export type LoginLinkResponse = z.infer<typeof LoginLinkResponse>;

/** Sessions' internal `GET /internal/sessions`: newest first, paginated like orders (D20). */
export const ListSessionsQuery = z.strictObject({ ...paginationQueryShape }).meta({ id: 'ListSessionsQuery' });
export type ListSessionsQuery = z.infer<typeof ListSessionsQuery>;

export const SessionListResponse = z
  .object({ sessions: z.array(CheckoutSession), pagination: Pagination })
  .meta({ id: 'SessionListResponse' });
export type SessionListResponse = z.infer<typeof SessionListResponse>;

/** Orders' internal `GET /internal/orders/:orderId/payments`: the payments applied to the order, oldest first. */
export const OrderPayment = z.object({
  id: z.string(),
  amount: z.int().min(0),
  method: z.string(),
  appliedAt: Timestamp,
});
export type OrderPayment = z.infer<typeof OrderPayment>;
export const OrderPaymentsResponse = z.object({ payments: z.array(OrderPayment) });
export type OrderPaymentsResponse = z.infer<typeof OrderPaymentsResponse>;

/** Orders' internal `GET /internal/orders/payments-per-hour`: payments applied per hour over the last 7 days. */
export const PaymentsPerHourResponse = z.object({
  from: Timestamp,
  hours: z.array(z.object({ hour: Timestamp, count: z.int().min(0), amount: z.int().min(0) })),
});
export type PaymentsPerHourResponse = z.infer<typeof PaymentsPerHourResponse>;

/**
 * The dispatcher's internal `GET /internal/events/delivery-stats`: per callback host, the last 24 hours of attempts.
 */
export const DeliveryStatsResponse = z.object({
  from: Timestamp,
  hosts: z.array(
    z.object({
      host: z.string(),
      attempts: z.int().min(0),
      succeeded: z.int().min(0),
      p95DurationMs: z.int().min(0),
    }),
  ),
});
export type DeliveryStatsResponse = z.infer<typeof DeliveryStatsResponse>;

/** The dispatcher's internal `GET /internal/events/failed-deliveries`: the most recent deliveries that ended failed. */
export const FailedDeliveriesResponse = z.object({
  deliveries: z.array(Delivery.extend({ eventId: EventId, updatedAt: Timestamp })),
});
export type FailedDeliveriesResponse = z.infer<typeof FailedDeliveriesResponse>;
export const FAILED_DELIVERIES_SHOWN = 10;

/** A page of a list answered without its total (INTERNAL_API_HEADERS.withoutTotal). */
export const PaginationWithoutTotal = Pagination.omit({ total: true });
export type PaginationWithoutTotal = z.infer<typeof PaginationWithoutTotal>;
export const OrderPageResponse = z.object({ orders: z.array(Order), pagination: PaginationWithoutTotal });
export type OrderPageResponse = z.infer<typeof OrderPageResponse>;
export const EventPageResponse = z.object({ events: z.array(WebhookEvent), pagination: PaginationWithoutTotal });
export type EventPageResponse = z.infer<typeof EventPageResponse>;

/**
 * The dispatcher's internal `GET /internal/webhook-endpoints/:id/deliveries` (D50's dashboard page of one endpoint):
 * its deliveries, newest event first, each with its attempts; a page without a total.
 */
export const EndpointDeliveriesResponse = z.object({
  deliveries: z.array(Delivery.extend({ eventId: EventId, eventType: z.string(), updatedAt: Timestamp })),
  pagination: PaginationWithoutTotal,
});
export type EndpointDeliveriesResponse = z.infer<typeof EndpointDeliveriesResponse>;
