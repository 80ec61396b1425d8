import {
  DeliveryStatsResponse,
  EndpointDeliveriesResponse,
  EventPageResponse,
  FailedDeliveriesResponse,
  OrderPageResponse,
  OrderPaymentsResponse,
  PaymentsPerHourResponse,
  SessionListResponse,
} from './dashboard';
import { TenantUsageResponse } from './budgets';
import { EventResponse, RecoverEventsRequest, RecoverEventsResponse, RedeliverResponse } from './events-api';
import {
  AppliedPaymentResponse,
  ApplyPaymentRequest,
  LocationsResponse,
  OrderSnapshot,
  PaymentDestinationsResponse,
} from './internal';
import { CreateOrderRequest, OrderResponse, UpdateOrderRequest } from './orders';
import { RefundListResponse } from './refunds';
import { BOOKS_ROUTES } from './books-routes';
import { routesOf, type InternalRoute } from './internal-route';
import { CreateSessionRequest, SessionResponse, UpdateSessionRequest } from './sessions';
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
} from './webhook-endpoints';
import { REPORT_INTERNAL_ROUTES } from './report-routes';

const NOT_FOUND = { order: 'ORDER_NOT_FOUND', session: 'SESSION_NOT_FOUND' } as const;

const orders = routesOf('orders');
const sessions = routesOf('sessions');
const gateway = routesOf('gateway');
const dispatcher = routesOf('webhook-dispatcher');

/** The table: every internal route of the platform, by the name its typed call uses. */
export const INTERNAL_ROUTES = {
  // Orders (the owner of orders, payments, refunds and operators' reference data).
  createOrder: orders({
    method: 'POST',
    path: '/internal/orders',
    callers: ['gateway', 'sessions'],
    request: CreateOrderRequest,
    answer: OrderResponse,
    errors: ['ORDER_CREATE_FAILED', 'DUPLICATE_EXTERNAL_ID', 'INVALID_REQUEST'],
    idempotent: true,
  }),
  listOrders: orders({
    method: 'GET',
    path: '/internal/orders',
    callers: ['gateway'],
    answer: OrderPageResponse,
    errors: ['ORDERS_FETCH_FAILED', 'INVALID_LOCATION_ID'],
  }),
  getOrder: orders({
    method: 'GET',
    path: '/internal/orders/:orderId',
    callers: ['gateway', 'sessions'],
    answer: OrderResponse,
    errors: [NOT_FOUND.order],
  }),
  updateOrder: orders({
    method: 'PATCH',
    path: '/internal/orders/:orderId',
    callers: ['gateway', 'sessions'],
    request: UpdateOrderRequest,
    answer: OrderResponse,
    errors: [NOT_FOUND.order, 'ORDER_UPDATE_FAILED', 'ORDER_NOT_EDITABLE', 'INVALID_REQUEST'],
  }),
  cancelOrder: orders({
    method: 'POST',
    path: '/internal/orders/:orderId/cancel',
    callers: ['gateway', 'sessions'],
    answer: OrderResponse,
    errors: [NOT_FOUND.order, 'ORDER_CANCEL_FAILED'],
    idempotent: true,
  }),
  closePayments: orders({
    method: 'POST',
    path: '/internal/orders/:orderId/close-payments',
    callers: ['sessions'],
    answer: OrderResponse,
    errors: [NOT_FOUND.order],
    idempotent: true,
  }),
  applyPayment: orders({
    method: 'POST',
    path: '/internal/orders/:orderId/payments',
    callers: ['sessions'],
    request: ApplyPaymentRequest,
    answer: AppliedPaymentResponse,
    // Sessions reads a refusal as ORDER_NOT_PAYABLE only, which every recorded release of orders answers.
    errors: [NOT_FOUND.order, 'ORDER_NOT_PAYABLE', 'INVALID_REQUEST'],
    idempotent: true,
  }),
  orderPayments: orders({
    method: 'GET',
    path: '/internal/orders/:orderId/payments',
    callers: ['gateway'],
    answer: OrderPaymentsResponse,
    errors: [NOT_FOUND.order],
  }),
  paymentsPerHour: orders({
    method: 'GET',
    path: '/internal/orders/payments-per-hour',
    callers: ['gateway'],
    answer: PaymentsPerHourResponse,
  }),
  createRefund: orders({
    method: 'POST',
    path: '/internal/orders/:orderId/refunds',
    callers: ['gateway'],
    errors: [NOT_FOUND.order, 'REFUND_FAILED', 'INVALID_REQUEST'],
  }),
  orderRefunds: orders({
    method: 'GET',
    path: '/internal/orders/:orderId/refunds',
    callers: ['gateway'],
    answer: RefundListResponse,
    errors: [NOT_FOUND.order, 'INVALID_REQUEST'],
  }),
  getRefund: orders({
    method: 'GET',
    path: '/internal/refunds/:refundId',
    callers: ['gateway'],
    errors: ['REFUND_NOT_FOUND'],
  }),
  testHelperCreateRefund: orders({
    method: 'POST',
    path: '/internal/test-helpers/orders/:orderId/refunds',
    callers: ['gateway'],
    errors: [NOT_FOUND.order, 'REFUND_FAILED', 'INVALID_REQUEST'],
  }),
  testHelperSettleRefund: orders({
    method: 'POST',
    path: '/internal/test-helpers/refunds/:refundId/settle',
    callers: ['gateway'],
    errors: ['REFUND_NOT_FOUND', 'INVALID_REQUEST'],
  }),
  refundNotification: orders({
    method: 'POST',
    path: '/internal/processor/refund-notifications',
    callers: ['gateway'],
    processorSigned: true,
  }),
  // Reports (D52), declared beside their shapes.
  ...REPORT_INTERNAL_ROUTES,
  // Operators manage reference data through the gateway's admin API; the hosted page reads it (D38).
  listLocations: orders({
    method: 'GET',
    path: '/internal/admin/locations',
    callers: ['gateway', 'sessions'],
    answer: LocationsResponse,
  }),
  createLocation: orders({
    method: 'POST',
    path: '/internal/admin/locations',
    callers: ['gateway'],
    errors: ['INVALID_REQUEST'],
  }),
  findPaymentDestinations: orders({
    method: 'GET',
    path: '/internal/admin/payment-destinations',
    callers: ['gateway', 'sessions'],
    answer: PaymentDestinationsResponse,
  }),
  createPaymentDestination: orders({
    method: 'POST',
    path: '/internal/admin/payment-destinations',
    callers: ['gateway'],
    errors: ['INVALID_PAYMENT_DESTINATION', 'INVALID_REQUEST'],
  }),
  updatePaymentDestination: orders({
    method: 'PATCH',
    path: '/internal/admin/payment-destinations/:destinationId',
    callers: ['gateway'],
    errors: ['PAYMENT_DESTINATION_NOT_FOUND', 'INVALID_PAYMENT_DESTINATION', 'INVALID_REQUEST'],
  }),

  // D52: the books (balance transactions, the balance), which orders keeps beside the movements they record.
  ...BOOKS_ROUTES,

  // Sessions: the merchants' session API and its test helpers, through the gateway.
  createSession: sessions({
    method: 'POST',
    path: '/internal/sessions',
    callers: ['gateway'],
    request: CreateSessionRequest,
    answer: SessionResponse,
    errors: ['SESSION_CREATION_FAILED', 'INVALID_REQUEST'],
  }),
  listSessions: sessions({
    method: 'GET',
    path: '/internal/sessions',
    callers: ['gateway'],
    answer: SessionListResponse,
    errors: ['INVALID_REQUEST'],
  }),
  getSession: sessions({
    method: 'GET',
    path: '/internal/sessions/:sessionId',
    callers: ['gateway'],
    answer: SessionResponse,
    errors: [NOT_FOUND.session],
  }),
  updateSession: sessions({
    method: 'PATCH',
    path: '/internal/sessions/:sessionId',
    callers: ['gateway'],
    request: UpdateSessionRequest,
    answer: SessionResponse,
    errors: [NOT_FOUND.session, 'SESSION_UPDATE_FAILED', 'INVALID_REQUEST'],
  }),
  /** D46: the session takes orders' answer (applied only if newer); 404: the session was never stored. */
  copyOrder: sessions({
    method: 'PUT',
    path: '/internal/sessions/:sessionId/order',
    callers: ['gateway'],
    request: OrderSnapshot,
    errors: [NOT_FOUND.session],
    idempotent: true,
  }),
  testHelperPaySession: sessions({
    method: 'POST',
    path: '/internal/test-helpers/sessions/:sessionId/pay',
    callers: ['gateway'],
    errors: [NOT_FOUND.session, 'SESSION_NOT_PAYABLE', 'INVALID_REQUEST'],
  }),
  testHelperExpireSession: sessions({
    method: 'POST',
    path: '/internal/test-helpers/sessions/:sessionId/expire',
    callers: ['gateway'],
    errors: [NOT_FOUND.session],
  }),
  paymentNotification: sessions({
    method: 'POST',
    path: '/internal/processor/notifications',
    callers: ['gateway'],
    processorSigned: true,
  }),

  // The gateway: only the dispatcher reads an organization's signing secrets (D35).
  checkoutSettings: gateway({
    method: 'GET',
    path: '/internal/checkout-settings',
    callers: ['webhook-dispatcher'],
  }),

  // The webhook dispatcher: the merchants' events, endpoints and event catalog, through the gateway.
  listEvents: dispatcher({
    method: 'GET',
    path: '/internal/events',
    callers: ['gateway'],
    answer: EventPageResponse,
    errors: ['INVALID_REQUEST'],
  }),
  getEvent: dispatcher({
    method: 'GET',
    path: '/internal/events/:eventId',
    callers: ['gateway'],
    answer: EventResponse,
    errors: ['EVENT_NOT_FOUND'],
  }),
  // The operators' dead-letter replay job redelivers too.
  redeliver: dispatcher({
    method: 'POST',
    path: '/internal/events/:eventId/redeliver',
    callers: ['gateway', 'dead-letter-replay'],
    answer: RedeliverResponse,
    errors: ['EVENT_NOT_FOUND', 'INVALID_REQUEST'],
  }),
  recoverEvents: dispatcher({
    method: 'POST',
    path: '/internal/events/recover',
    callers: ['gateway'],
    request: RecoverEventsRequest,
    answer: RecoverEventsResponse,
    errors: ['RECOVERY_IN_PROGRESS', 'INVALID_REQUEST'],
  }),
  failedDeliveries: dispatcher({
    method: 'GET',
    path: '/internal/events/failed-deliveries',
    callers: ['gateway'],
    answer: FailedDeliveriesResponse,
  }),
  deliveryStats: dispatcher({
    method: 'GET',
    path: '/internal/events/delivery-stats',
    callers: ['gateway'],
    answer: DeliveryStatsResponse,
  }),
  // The merchant's usage of its budgets today (events, deliveries, bytes): the gateway refuses the merchant's writes
  // past one (429 QUOTA_EXCEEDED).
  tenantUsage: dispatcher({
    method: 'GET',
    path: '/internal/usage',
    callers: ['gateway'],
    answer: TenantUsageResponse,
  }),
  listEventTypes: dispatcher({
    method: 'GET',
    path: '/internal/event-types',
    callers: ['gateway'],
  }),
  listEndpoints: dispatcher({
    method: 'GET',
    path: '/internal/webhook-endpoints',
    callers: ['gateway'],
    answer: WebhookEndpointList,
    errors: ['INVALID_REQUEST'],
  }),
  createEndpoint: dispatcher({
    method: 'POST',
    path: '/internal/webhook-endpoints',
    callers: ['gateway'],
    request: CreateWebhookEndpointRequest,
    answer: WebhookEndpointSecretResponse,
    errors: ['WEBHOOK_ENDPOINT_CREATE_FAILED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
  }),
  getEndpoint: dispatcher({
    method: 'GET',
    path: '/internal/webhook-endpoints/:endpointId',
    callers: ['gateway'],
    answer: WebhookEndpointResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  }),
  updateEndpoint: dispatcher({
    method: 'PATCH',
    path: '/internal/webhook-endpoints/:endpointId',
    callers: ['gateway'],
    request: UpdateWebhookEndpointRequest,
    answer: WebhookEndpointResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_ENDPOINT_UPDATE_FAILED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
  }),
  deleteEndpoint: dispatcher({
    method: 'DELETE',
    path: '/internal/webhook-endpoints/:endpointId',
    callers: ['gateway'],
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  }),
  endpointDeliveries: dispatcher({
    method: 'GET',
    path: '/internal/webhook-endpoints/:endpointId/deliveries',
    callers: ['gateway'],
    answer: EndpointDeliveriesResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'INVALID_REQUEST'],
  }),
  rotateEndpointSecret: dispatcher({
    method: 'POST',
    path: '/internal/webhook-endpoints/:endpointId/rotate-secret',
    callers: ['gateway'],
    answer: WebhookEndpointSecretResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  }),
} satisfies Record<string, InternalRoute>;

export type InternalRouteName = keyof typeof INTERNAL_ROUTES;
