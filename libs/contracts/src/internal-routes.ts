import { z } from 'zod';
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
import { EventResponse, RecoverEventsRequest, RecoverEventsResponse, RedeliverResponse } from './events';
import {
  AppliedPaymentResponse,
  ApplyPaymentRequest,
  LocationsResponse,
  OrderSnapshot,
  PaymentDestinationsResponse,
} from './internal';
import { CreateOrderRequest, OrderResponse, UpdateOrderRequest } from './orders';
import { RefundListResponse } from './refunds';
import { CreateSessionRequest, SessionResponse, UpdateSessionRequest } from './sessions';
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
} from './webhook-endpoints';

/** The services that answer internal calls. */
export type InternalService = 'gateway' | 'orders' | 'sessions' | 'webhook-dispatcher';
/** Who calls them: a service, or an operators' job with a credential of its own. */
export type InternalCaller = InternalService | 'dead-letter-replay';
export type InternalMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One internal route, declared once: the callee's internal auth lets exactly its callers in (libs/http's
 * `internalRouteRules`), a caller's typed call builds its path and parses its answer from it (libs/http's
 * `InternalClient.call`), and the contract tests require a recorded fixture of each (route, caller).
 */
export interface InternalRoute {
  callee: InternalService;
  method: InternalMethod;
  /** Koa's form: `:name` for a path parameter. */
  path: string;
  callers: readonly InternalCaller[];
  /** The body the callee validates (strictly, D7); absent: none, or the callee's own public schema. */
  request?: z.ZodType;
  /** The success body a caller reads itself; absent: nothing read (a 204), or only passed on as it came. */
  answer?: z.ZodType;
  /** The error codes the callee answers that its callers read and map (the recorded 4xx fixtures stay within). */
  errors: readonly string[];
  /**
   * Retried after a transport failure or a 503 (libs/http's InternalClient); absent: only a GET. A payment is
   * idempotent by its payment id (D27), cancel by the spec, close-payments by its state.
   */
  idempotent?: boolean;
  /**
   * Signed by the payment processor (HMAC over the raw body) instead of a caller's token, and passed through by
   * the gateway byte for byte: no typed call, no internal token, no fixture (the processor writes it).
   */
  processorSigned?: true;
}

const NOT_FOUND = { order: 'ORDER_NOT_FOUND', session: 'SESSION_NOT_FOUND' } as const;

/** The table: every internal route of the platform, by the name its typed call uses. */
export const INTERNAL_ROUTES = {
  // Orders (the owner of orders, payments, refunds and operators' reference data).
  createOrder: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/orders',
    callers: ['gateway', 'sessions'],
    request: CreateOrderRequest,
    answer: OrderResponse,
    errors: ['ORDER_CREATE_FAILED', 'DUPLICATE_EXTERNAL_ID', 'INVALID_REQUEST'],
    idempotent: true,
  },
  listOrders: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/orders',
    callers: ['gateway'],
    answer: OrderPageResponse,
    errors: ['ORDERS_FETCH_FAILED', 'INVALID_LOCATION_ID'],
  },
  getOrder: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/orders/:orderId',
    callers: ['gateway', 'sessions'],
    answer: OrderResponse,
    errors: [NOT_FOUND.order],
  },
  updateOrder: {
    callee: 'orders',
    method: 'PATCH',
    path: '/internal/orders/:orderId',
    callers: ['gateway', 'sessions'],
    request: UpdateOrderRequest,
    answer: OrderResponse,
    errors: [NOT_FOUND.order, 'ORDER_UPDATE_FAILED', 'ORDER_NOT_EDITABLE', 'INVALID_REQUEST'],
  },
  cancelOrder: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/orders/:orderId/cancel',
    callers: ['gateway', 'sessions'],
    answer: OrderResponse,
    errors: [NOT_FOUND.order, 'ORDER_CANCEL_FAILED'],
    idempotent: true,
  },
  closePayments: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/orders/:orderId/close-payments',
    callers: ['sessions'],
    answer: OrderResponse,
    errors: [NOT_FOUND.order],
    idempotent: true,
  },
  applyPayment: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/orders/:orderId/payments',
    callers: ['sessions'],
    request: ApplyPaymentRequest,
    answer: AppliedPaymentResponse,
    // Sessions reads a refusal as ORDER_NOT_PAYABLE only, which every recorded release of orders answers.
    errors: [NOT_FOUND.order, 'ORDER_NOT_PAYABLE', 'INVALID_REQUEST'],
    idempotent: true,
  },
  orderPayments: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/orders/:orderId/payments',
    callers: ['gateway'],
    answer: OrderPaymentsResponse,
    errors: [NOT_FOUND.order],
  },
  paymentsPerHour: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/orders/payments-per-hour',
    callers: ['gateway'],
    answer: PaymentsPerHourResponse,
    errors: [],
  },
  createRefund: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/orders/:orderId/refunds',
    callers: ['gateway'],
    errors: [NOT_FOUND.order, 'REFUND_FAILED', 'INVALID_REQUEST'],
  },
  orderRefunds: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/orders/:orderId/refunds',
    callers: ['gateway'],
    answer: RefundListResponse,
    errors: [NOT_FOUND.order, 'INVALID_REQUEST'],
  },
  getRefund: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/refunds/:refundId',
    callers: ['gateway'],
    errors: ['REFUND_NOT_FOUND'],
  },
  testHelperCreateRefund: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/test-helpers/orders/:orderId/refunds',
    callers: ['gateway'],
    errors: [NOT_FOUND.order, 'REFUND_FAILED', 'INVALID_REQUEST'],
  },
  testHelperSettleRefund: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/test-helpers/refunds/:refundId/settle',
    callers: ['gateway'],
    errors: ['REFUND_NOT_FOUND', 'INVALID_REQUEST'],
  },
  refundNotification: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/processor/refund-notifications',
    callers: ['gateway'],
    errors: [],
    processorSigned: true,
  },
  // Operators manage reference data through the gateway's admin API; the hosted page reads it (D38).
  listLocations: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/admin/locations',
    callers: ['gateway', 'sessions'],
    answer: LocationsResponse,
    errors: [],
  },
  createLocation: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/admin/locations',
    callers: ['gateway'],
    errors: ['INVALID_REQUEST'],
  },
  findPaymentDestinations: {
    callee: 'orders',
    method: 'GET',
    path: '/internal/admin/payment-destinations',
    callers: ['gateway', 'sessions'],
    answer: PaymentDestinationsResponse,
    errors: [],
  },
  createPaymentDestination: {
    callee: 'orders',
    method: 'POST',
    path: '/internal/admin/payment-destinations',
    callers: ['gateway'],
    errors: ['INVALID_PAYMENT_DESTINATION', 'INVALID_REQUEST'],
  },
  updatePaymentDestination: {
    callee: 'orders',
    method: 'PATCH',
    path: '/internal/admin/payment-destinations/:destinationId',
    callers: ['gateway'],
    errors: ['PAYMENT_DESTINATION_NOT_FOUND', 'INVALID_PAYMENT_DESTINATION', 'INVALID_REQUEST'],
  },

  // Sessions: the merchants' session API and its test helpers, through the gateway.
  createSession: {
    callee: 'sessions',
    method: 'POST',
    path: '/internal/sessions',
    callers: ['gateway'],
    request: CreateSessionRequest,
    answer: SessionResponse,
    errors: ['SESSION_CREATION_FAILED', 'INVALID_REQUEST'],
  },
  listSessions: {
    callee: 'sessions',
    method: 'GET',
    path: '/internal/sessions',
    callers: ['gateway'],
    answer: SessionListResponse,
    errors: ['INVALID_REQUEST'],
  },
  getSession: {
    callee: 'sessions',
    method: 'GET',
    path: '/internal/sessions/:sessionId',
    callers: ['gateway'],
    answer: SessionResponse,
    errors: [NOT_FOUND.session],
  },
  updateSession: {
    callee: 'sessions',
    method: 'PATCH',
    path: '/internal/sessions/:sessionId',
    callers: ['gateway'],
    request: UpdateSessionRequest,
    answer: SessionResponse,
    errors: [NOT_FOUND.session, 'SESSION_UPDATE_FAILED', 'INVALID_REQUEST'],
  },
  /** D46: the session takes orders' answer (applied only if newer); 404: the session was never stored. */
  copyOrder: {
    callee: 'sessions',
    method: 'PUT',
    path: '/internal/sessions/:sessionId/order',
    callers: ['gateway'],
    request: OrderSnapshot,
    errors: [NOT_FOUND.session],
    idempotent: true,
  },
  testHelperPaySession: {
    callee: 'sessions',
    method: 'POST',
    path: '/internal/test-helpers/sessions/:sessionId/pay',
    callers: ['gateway'],
    errors: [NOT_FOUND.session, 'SESSION_NOT_PAYABLE', 'INVALID_REQUEST'],
  },
  testHelperExpireSession: {
    callee: 'sessions',
    method: 'POST',
    path: '/internal/test-helpers/sessions/:sessionId/expire',
    callers: ['gateway'],
    errors: [NOT_FOUND.session],
  },
  paymentNotification: {
    callee: 'sessions',
    method: 'POST',
    path: '/internal/processor/notifications',
    callers: ['gateway'],
    errors: [],
    processorSigned: true,
  },

  // The gateway: only the dispatcher reads an organization's signing secrets (D35).
  checkoutSettings: {
    callee: 'gateway',
    method: 'GET',
    path: '/internal/checkout-settings',
    callers: ['webhook-dispatcher'],
    errors: [],
  },

  // The webhook dispatcher: the merchants' events, endpoints and event catalog, through the gateway.
  listEvents: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/events',
    callers: ['gateway'],
    answer: EventPageResponse,
    errors: ['INVALID_REQUEST'],
  },
  getEvent: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/events/:eventId',
    callers: ['gateway'],
    answer: EventResponse,
    errors: ['EVENT_NOT_FOUND'],
  },
  // The operators' dead-letter replay job redelivers too.
  redeliver: {
    callee: 'webhook-dispatcher',
    method: 'POST',
    path: '/internal/events/:eventId/redeliver',
    callers: ['gateway', 'dead-letter-replay'],
    answer: RedeliverResponse,
    errors: ['EVENT_NOT_FOUND', 'INVALID_REQUEST'],
  },
  recoverEvents: {
    callee: 'webhook-dispatcher',
    method: 'POST',
    path: '/internal/events/recover',
    callers: ['gateway'],
    request: RecoverEventsRequest,
    answer: RecoverEventsResponse,
    errors: ['RECOVERY_IN_PROGRESS', 'INVALID_REQUEST'],
  },
  failedDeliveries: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/events/failed-deliveries',
    callers: ['gateway'],
    answer: FailedDeliveriesResponse,
    errors: [],
  },
  deliveryStats: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/events/delivery-stats',
    callers: ['gateway'],
    answer: DeliveryStatsResponse,
    errors: [],
  },
  listEventTypes: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/event-types',
    callers: ['gateway'],
    errors: [],
  },
  listEndpoints: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/webhook-endpoints',
    callers: ['gateway'],
    answer: WebhookEndpointList,
    errors: ['INVALID_REQUEST'],
  },
  createEndpoint: {
    callee: 'webhook-dispatcher',
    method: 'POST',
    path: '/internal/webhook-endpoints',
    callers: ['gateway'],
    request: CreateWebhookEndpointRequest,
    answer: WebhookEndpointSecretResponse,
    errors: ['WEBHOOK_ENDPOINT_CREATE_FAILED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
  },
  getEndpoint: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/webhook-endpoints/:endpointId',
    callers: ['gateway'],
    answer: WebhookEndpointResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  updateEndpoint: {
    callee: 'webhook-dispatcher',
    method: 'PATCH',
    path: '/internal/webhook-endpoints/:endpointId',
    callers: ['gateway'],
    request: UpdateWebhookEndpointRequest,
    answer: WebhookEndpointResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_ENDPOINT_UPDATE_FAILED'],
  },
  deleteEndpoint: {
    callee: 'webhook-dispatcher',
    method: 'DELETE',
    path: '/internal/webhook-endpoints/:endpointId',
    callers: ['gateway'],
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  endpointDeliveries: {
    callee: 'webhook-dispatcher',
    method: 'GET',
    path: '/internal/webhook-endpoints/:endpointId/deliveries',
    callers: ['gateway'],
    answer: EndpointDeliveriesResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'INVALID_REQUEST'],
  },
  rotateEndpointSecret: {
    callee: 'webhook-dispatcher',
    method: 'POST',
    path: '/internal/webhook-endpoints/:endpointId/rotate-secret',
    callers: ['gateway'],
    answer: WebhookEndpointSecretResponse,
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
} as const satisfies Record<string, InternalRoute>;

export type InternalRouteName = keyof typeof INTERNAL_ROUTES;

/** The names of a route's path parameters, from its Koa path (`/internal/orders/:orderId` → 'orderId'). */
type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
export type InternalRouteParams<R extends InternalRoute> = Record<ParamsOf<R['path']>, string>;

/** What a caller reads from a route's success: its answer schema's output, or nothing. */
export type InternalAnswerOf<R extends InternalRoute> = R extends { answer: z.ZodType } ? z.output<R['answer']> : void;

/** A route's path with its parameters filled in, each URI-encoded. */
export function internalPath(route: InternalRoute, params: Readonly<Record<string, string>> = {}): string {
  return route.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.method} ${route.path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}
