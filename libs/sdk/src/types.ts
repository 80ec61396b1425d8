import type { z } from 'zod';
import type {
  CreateOrderRequest,
  CreateRefundRequest,
  CreateSessionRequest,
  ListEventsQuery,
  ListOrdersQuery,
  PayRequest,
  RecoverEventsRequest,
  ListRefundsQuery,
  SettleRefundRequest,
  TestHelperCreateRefundRequest,
  UpdateOrderRequest,
  UpdateSessionRequest,
} from '@checkout/contracts';

// Request types are what the API accepts (zod input: defaults may be left out); response types are what it
// answers (zod output). Both come from the schemas the gateway validates with, so they cannot drift.

export type {
  CheckoutSession,
  Delivery,
  DeliveryAttempt,
  EventListResponse,
  EventResponse,
  EventType,
  LoginLinkResponse,
  Order,
  OrderListResponse,
  OrderStatus,
  Pagination,
  PaymentMethod,
  PaymentStatus,
  RecoverEventsResponse,
  Refund,
  RefundFailureReason,
  RefundListResponse,
  RefundReason,
  RefundStatus,
  SessionStatus,
  WebhookEvent,
} from '@checkout/contracts';

export type OrderCreateParams = z.input<typeof CreateOrderRequest>;
export type OrderUpdateParams = z.input<typeof UpdateOrderRequest>;
/** Filters of `orders.list`; `page` is where iteration starts. */
export type OrderListParams = Partial<z.output<typeof ListOrdersQuery>>;
export type CheckoutSessionCreateParams = z.input<typeof CreateSessionRequest>;
export type CheckoutSessionUpdateParams = z.input<typeof UpdateSessionRequest>;
export type EventListParams = Partial<z.output<typeof ListEventsQuery>>;
export type TestPaymentParams = z.input<typeof PayRequest>;
export interface EventRecoverParams {
  /** Failed deliveries since this time (at most 14 days back) are delivered again (D44). */
  since: Date | z.input<typeof RecoverEventsRequest>['since'];
}
export type RefundCreateParams = z.input<typeof CreateRefundRequest>;
/** `page` is where iteration starts. */
export type RefundListParams = Partial<z.output<typeof ListRefundsQuery>>;
export type TestRefundCreateParams = z.input<typeof TestHelperCreateRefundRequest>;
export type TestRefundSettleParams = z.input<typeof SettleRefundRequest>;
