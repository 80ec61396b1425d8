import type { z } from 'zod';
import type {
  UpdateCheckoutSettingsRequest,
  CreateWebhookEndpointRequest,
  ListWebhookEndpointsQuery,
  RedeliverRequest,
  UpdateWebhookEndpointRequest,
  CreateOrderRequest,
  CreateReportRequest,
  ListBalanceTransactionsQuery,
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
  Balance,
  BalanceTransaction,
  BalanceTransactionListResponse,
  CheckoutBrand as CheckoutSettings,
  CheckoutSession,
  Delivery,
  DefaultLocale,
  DeliveryAttempt,
  EventListResponse,
  EventResponse,
  EventType,
  EventTypeInfo,
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
  Report,
  SessionStatus,
  WebhookEndpoint,
  WebhookEndpointDeleted,
  WebhookEndpointWithSecret,
  WebhookEvent,
} from '@checkout/contracts';

/** `checkoutSettings.update`: an absent field stays as it is, null clears it. */
export type CheckoutSettingsUpdateParams = z.input<typeof UpdateCheckoutSettingsRequest>;
export type OrderCreateParams = z.input<typeof CreateOrderRequest>;
export type OrderUpdateParams = z.input<typeof UpdateOrderRequest>;
/** Filters of `orders.list`; `page` is where iteration starts. */
export type OrderListParams = Partial<z.output<typeof ListOrdersQuery>>;
export type CheckoutSessionCreateParams = z.input<typeof CreateSessionRequest>;
export type CheckoutSessionUpdateParams = z.input<typeof UpdateSessionRequest>;
/** Filters of `events.list` (D34, D51): `createdAfter`/`createdBefore` as ISO strings or Dates. */
export type EventListParams = Partial<
  Omit<z.output<typeof ListEventsQuery>, 'createdAfter' | 'createdBefore'> & {
    createdAfter: string | Date;
    createdBefore: string | Date;
  }
>;
export type EventRedeliverParams = z.input<typeof RedeliverRequest>;
export type WebhookEndpointCreateParams = z.input<typeof CreateWebhookEndpointRequest>;
export type WebhookEndpointUpdateParams = z.input<typeof UpdateWebhookEndpointRequest>;
export type WebhookEndpointListParams = Partial<z.output<typeof ListWebhookEndpointsQuery>>;
export type TestPaymentParams = z.input<typeof PayRequest>;
export interface EventRecoverParams {
  /** Failed deliveries since this time (at most 14 days back) are delivered again (D44). */
  since: Date | z.input<typeof RecoverEventsRequest>['since'];
  /** Only this webhook endpoint's, and what it missed while disabled (D50). */
  endpointId?: string;
}
export type RefundCreateParams = z.input<typeof CreateRefundRequest>;
/** `page` is where iteration starts. */
export type RefundListParams = Partial<z.output<typeof ListRefundsQuery>>;
export type TestRefundCreateParams = z.input<typeof TestHelperCreateRefundRequest>;
export type TestRefundSettleParams = z.input<typeof SettleRefundRequest>;
/** Filters of `balanceTransactions.list` (D52): `createdAfter`/`createdBefore` as ISO strings or Dates. */
export type BalanceTransactionListParams = Partial<
  Omit<z.output<typeof ListBalanceTransactionsQuery>, 'createdAfter' | 'createdBefore'> & {
    createdAfter: string | Date;
    createdBefore: string | Date;
  }
>;
/** `reports.create` (D52): the window (at most 366 days) as ISO strings or Dates. */
export type ReportCreateParams = Omit<z.input<typeof CreateReportRequest>, 'createdAfter' | 'createdBefore'> & {
  createdAfter: string | Date;
  createdBefore: string | Date;
};
