import { z } from 'zod';
import type { ErrorCode } from '@checkout/errors';
import {
  CreateWebhookEndpointRequest,
  EventTypeList,
  ListEventTypesQuery,
  ListWebhookEndpointsQuery,
  RedeliverRequest,
  UpdateWebhookEndpointRequest,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
  CreateOrderRequest,
  CreateRefundRequest,
  CreateSessionRequest,
  EventListResponse,
  EventResponse,
  ListEventsQuery,
  ListOrdersQuery,
  LoginLinkResponse,
  OrderListResponse,
  OrderResponse,
  PayRequest,
  RecoverEventsRequest,
  RecoverEventsResponse,
  RedeliverResponse,
  RefundListResponse,
  RefundResponse,
  ListRefundsQuery,
  SessionResponse,
  SettleRefundRequest,
  TestHelperCreateRefundRequest,
  UpdateOrderRequest,
  UpdateSessionRequest,
  type IdPrefix,
  DELIVERY_SEARCH_MAX,
} from '@checkout/contracts';

export type Upstream = 'orders' | 'sessions' | 'dispatcher';
/** 'gateway': answered by the gateway itself (D47's login links), with a router of its own; not forwarded. */
type RouteOwner = Upstream | 'gateway';

export interface PublicRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Koa router path. */
  path: string;
  operationId: string;
  summary: string;
  /** What the operation does and the rules a caller meets, for the document (every operation has one). */
  description: string;
  tag: 'Orders' | 'Refunds' | 'Checkout sessions' | 'Test helpers' | 'Events' | 'Webhook endpoints' | 'Dashboard';
  upstream: RouteOwner;
  upstreamPath: (params: Record<string, string>) => string;
  idParam?: { name: string; prefix: IdPrefix; code: ErrorCode; description: string };
  /**
   * The request body's schema, for the OpenAPI document: the owning service validates it (one place, with its codes).
   */
  body?: { schema: z.ZodType; required: boolean };
  /** The query's schema, for the document; validated by the owning service. */
  query?: { schema: z.ZodObject };
  success: { status: number; schema: z.ZodType };
  /** Error codes this operation can answer, besides the authentication ones every route shares. */
  errors: ErrorCode[];
  /** D29: test helpers exist only for sk_test keys; a live key sees 404 NOT_FOUND. */
  testModeOnly?: boolean;
  /** Session creation needs the organization's checkout settings (D22, D26). */
  forwardCheckoutSettings?: boolean;
  /**
   * D46: a write of an order that a checkout session shows; its session's copy is brought up to date before the
   * merchant is answered, so the merchant's next read of the session shows the write.
   */
  copyOrderToSession?: boolean;
  /**
   * The merchant's answer is this key of the owner's answer only: a refund write answers `{refund}` (D48), while
   * orders' answer also carries the order for the session's copy (copyOrderToSession).
   */
  answerOnly?: 'refund';
  /**
   * OpenAPI links from the success response to the operations that take the id it returns (stateful testing
   * and generated clients follow them): operationId → JSON pointer into the response body.
   */
  links?: Record<string, { parameter: string; pointer: string }>;
  /**
   * No Idempotency-Key (D42) on this POST: its answer is a secret that must not be stored in clear, and
   * repeating it is harmless (D47: each call makes a new single-use login link; D50: a second rotation leaves the
   * secret it answers with current, and the one before it signing for 24 hours).
   */
  noIdempotencyKey?: boolean;
  /**
   * A POST that is not safe to repeat (a refund: two identical refunds are two refunds) made safe to retry without
   * an Idempotency-Key too: an identical retry of a try answered 5xx is the same write (domain/keyless-writes.ts).
   */
  keylessRetry?: boolean;
}

const orderLinks = ['getOrder', 'updateOrder', 'cancelOrder', 'createRefund', 'listRefunds', 'testHelperCreateRefund'];
const refundLinks = ['getRefund', 'testHelperSettleRefund'];
const sessionLinks = ['getCheckoutSession', 'updateCheckoutSession', 'testHelperPay', 'testHelperExpire'];
const linksTo = (operationIds: readonly string[], parameter: string, pointer: string) =>
  Object.fromEntries(operationIds.map((operationId) => [operationId, { parameter, pointer }]));

const orderId = {
  name: 'orderId',
  prefix: 'ord',
  code: 'INVALID_ORDER_ID',
  description: 'Order id, `ord_<mode>_<suffix>`.',
} as const;
const sessionId = {
  name: 'sessionId',
  prefix: 'cs',
  code: 'INVALID_SESSION_ID',
  description: 'Checkout session id, `cs_<mode>_<suffix>`.',
} as const;
const eventId = {
  name: 'eventId',
  prefix: 'evt',
  code: 'INVALID_EVENT_ID',
  description: 'Event id, `evt_<mode>_<suffix>`.',
} as const;
const refundId = {
  name: 'refundId',
  prefix: 're',
  code: 'INVALID_REFUND_ID',
  description: 'Refund id, `re_<mode>_<suffix>`.',
} as const;
const endpointId = {
  name: 'endpointId',
  prefix: 'we',
  code: 'INVALID_WEBHOOK_ENDPOINT_ID',
  description: 'Webhook endpoint id, `we_<mode>_<suffix>`.',
} as const;
const endpointLinks = [
  'getWebhookEndpoint',
  'updateWebhookEndpoint',
  'deleteWebhookEndpoint',
  'rotateWebhookEndpointSecret',
];
const enc = encodeURIComponent;

/**
 * The public API in one table: the gateway routes, authenticates, validates and forwards from it, and the
 * OpenAPI document is generated from it, so the document cannot drift from what the gateway accepts.
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  {
    method: 'GET',
    path: '/v0/orders',
    operationId: 'listOrders',
    summary: 'List orders',
    description:
      "Orders of this key's organization and mode, newest first (D20: `createdAt` descending, then id), paginated with `page` and `limit`. Filters: `status`, `paymentStatus`, `locationId`, `externalId`; a malformed `locationId` is 400 `INVALID_LOCATION_ID`.",
    tag: 'Orders',
    upstream: 'orders',
    upstreamPath: () => '/internal/orders',
    query: { schema: ListOrdersQuery },
    success: { status: 200, schema: OrderListResponse },
    errors: ['ORDERS_FETCH_FAILED', 'INVALID_LOCATION_ID'],
  },
  {
    method: 'POST',
    path: '/v0/orders',
    operationId: 'createOrder',
    summary: 'Create an order',
    description:
      'Creates an order from items, taxes, discounts and an optional tip; the server computes every amount (D17). `externalId` is unique per organization and mode, also under concurrency (D37: 409 `DUPLICATE_EXTERNAL_ID`). A customer given by email is found or created (D11). Send an `Idempotency-Key` to retry safely (D42).',
    tag: 'Orders',
    upstream: 'orders',
    upstreamPath: () => '/internal/orders',
    body: { schema: CreateOrderRequest, required: true },
    success: { status: 201, schema: OrderResponse },
    links: linksTo(orderLinks, 'orderId', '/order/id'),
    errors: [
      'ORDER_CREATE_FAILED',
      'DUPLICATE_EXTERNAL_ID',
      'INVALID_LOCATION_ID',
      'LOCATION_NOT_FOUND',
      'INVALID_PAYMENT_DESTINATION',
      'PAYMENT_DESTINATION_NOT_FOUND',
      'PAYMENT_DESTINATION_NOT_ACTIVE',
      'INVALID_REQUEST',
      'PAYLOAD_TOO_LARGE',
    ],
  },
  {
    method: 'GET',
    path: '/v0/orders/:orderId',
    operationId: 'getOrder',
    summary: 'Retrieve an order',
    description:
      "The order with its computed amounts and payment status. Another organization's or the other mode's id is 404, as an unknown one (D4).",
    tag: 'Orders',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/orders/${enc(p.orderId ?? '')}`,
    idParam: orderId,
    success: { status: 200, schema: OrderResponse },
    errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND'],
  },
  {
    method: 'PATCH',
    path: '/v0/orders/:orderId',
    operationId: 'updateOrder',
    summary: 'Update an open, unpaid order',
    description:
      "Replaces the order's items, taxes or discounts, or changes its customer, shipping address or metadata, while it is open and nothing has been paid; amounts are computed again (D17). An omitted field is unchanged; `externalId` cannot change. A checkout session showing this order shows the change on the merchant's next read (D46).",
    tag: 'Orders',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/orders/${enc(p.orderId ?? '')}`,
    idParam: orderId,
    copyOrderToSession: true,
    body: { schema: UpdateOrderRequest, required: false },
    success: { status: 200, schema: OrderResponse },
    errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'ORDER_UPDATE_FAILED', 'ORDER_NOT_EDITABLE', 'INVALID_REQUEST'],
  },
  {
    method: 'POST',
    path: '/v0/orders/:orderId/cancel',
    operationId: 'cancelOrder',
    summary: 'Cancel an open, unpaid order (idempotent)',
    description:
      'Cancels an open order with nothing paid; cancelling a cancelled order answers it again unchanged (D25). A checkout session of the order becomes `cancelled` before the answer (D46).',
    tag: 'Orders',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/orders/${enc(p.orderId ?? '')}/cancel`,
    idParam: orderId,
    copyOrderToSession: true,
    success: { status: 200, schema: OrderResponse },
    errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'ORDER_CANCEL_FAILED'],
  },
  {
    method: 'POST',
    path: '/v0/orders/:orderId/refunds',
    operationId: 'createRefund',
    summary:
      'Refund money an order received (D48): at most what is refundable, whatever the order status; test mode succeeds at once, live mode stays pending until the processor settles it',
    description:
      "`amount` (minor units) is optional: without it, all that is refundable (amounts.paid minus succeeded and pending refunds). More than that, or an order that received nothing, is 400 `REFUND_FAILED`; at most 100 refunds per order. The order's `amounts.refunded` counts succeeded refunds. With an `Idempotency-Key`, a retry is the same refund (D42); without one, a retry with the same body of a refund answered 5xx (or not at all) is the same refund too, while an identical refund after an answered one is a new refund.",
    tag: 'Refunds',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/orders/${enc(p.orderId ?? '')}/refunds`,
    idParam: orderId,
    copyOrderToSession: true,
    answerOnly: 'refund',
    keylessRetry: true,
    body: { schema: CreateRefundRequest, required: false },
    success: { status: 201, schema: RefundResponse },
    links: linksTo(refundLinks, 'refundId', '/refund/id'),
    errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'REFUND_FAILED', 'INVALID_REQUEST'],
  },
  {
    method: 'GET',
    path: '/v0/orders/:orderId/refunds',
    operationId: 'listRefunds',
    summary: "List an order's refunds, newest first",
    description:
      "The order's refunds, newest first, paged as orders are (`page`, `limit` at most 100; an order has at most 100).",
    tag: 'Refunds',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/orders/${enc(p.orderId ?? '')}/refunds`,
    idParam: orderId,
    query: { schema: ListRefundsQuery },
    success: { status: 200, schema: RefundListResponse },
    errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'INVALID_REQUEST'],
  },
  {
    method: 'GET',
    path: '/v0/refunds/:refundId',
    operationId: 'getRefund',
    summary: 'Retrieve a refund',
    description: "One refund of this organization and mode; another's, or the other mode's, is 404 `REFUND_NOT_FOUND`.",
    tag: 'Refunds',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/refunds/${enc(p.refundId ?? '')}`,
    idParam: refundId,
    success: { status: 200, schema: RefundResponse },
    errors: ['INVALID_REFUND_ID', 'REFUND_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/v0/checkout/sessions',
    operationId: 'createCheckoutSession',
    summary: 'Create an order and its hosted checkout session',
    description:
      "Creates an order (as `POST /v0/orders`) and a checkout session for it in one call: the answer carries the hosted page's `url` (D21, D22). The session expires after `expiresInMinutes`; its events go to `callbackUrl` or the organization's default (D30, D31).",
    tag: 'Checkout sessions',
    upstream: 'sessions',
    upstreamPath: () => '/internal/sessions',
    forwardCheckoutSettings: true,
    body: { schema: CreateSessionRequest, required: true },
    success: { status: 201, schema: SessionResponse },
    links: {
      ...linksTo(sessionLinks, 'sessionId', '/session/id'),
      ...linksTo(orderLinks, 'orderId', '/session/order/id'),
    },
    errors: [
      'SESSION_CREATION_FAILED',
      'DUPLICATE_EXTERNAL_ID',
      'INVALID_LOCATION_ID',
      'LOCATION_NOT_FOUND',
      'INVALID_PAYMENT_DESTINATION',
      'PAYMENT_DESTINATION_NOT_FOUND',
      'PAYMENT_DESTINATION_NOT_ACTIVE',
      'INVALID_REQUEST',
      'PAYLOAD_TOO_LARGE',
    ],
  },
  {
    method: 'GET',
    path: '/v0/checkout/sessions/:sessionId',
    operationId: 'getCheckoutSession',
    summary: 'Retrieve a checkout session with its current order',
    description: 'The session with its order as it is now (D46: a write the merchant was answered for is shown).',
    tag: 'Checkout sessions',
    upstream: 'sessions',
    upstreamPath: (p) => `/internal/sessions/${enc(p.sessionId ?? '')}`,
    idParam: sessionId,
    success: { status: 200, schema: SessionResponse },
    errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND'],
  },
  {
    method: 'PATCH',
    path: '/v0/checkout/sessions/:sessionId',
    operationId: 'updateCheckoutSession',
    summary: 'Extend a pending session or merge sessionData',
    description:
      "`extendExpiry` adds minutes to the expiry of a pending session (the whole lifetime at most 7 days, D23); `sessionData` is merged into the session's data key by key (shallow), in any status, within its key and size limits. Otherwise 400 `SESSION_UPDATE_FAILED`.",
    tag: 'Checkout sessions',
    upstream: 'sessions',
    upstreamPath: (p) => `/internal/sessions/${enc(p.sessionId ?? '')}`,
    idParam: sessionId,
    body: { schema: UpdateSessionRequest, required: false },
    success: { status: 200, schema: SessionResponse },
    errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND', 'SESSION_UPDATE_FAILED', 'INVALID_REQUEST'],
  },
  {
    method: 'POST',
    path: '/v0/test_helpers/checkout/sessions/:sessionId/pay',
    operationId: 'testHelperPay',
    summary: 'Test mode: pay a session through the simulated processors',
    description:
      "Test keys only (a live key gets 404, D29): pays the session through the hosted page's own code path with `method` and `outcome` (declined, or succeeded in full or with `amount`); a payment that pays the order completes the session and fires `checkout.session.completed`.",
    tag: 'Test helpers',
    upstream: 'sessions',
    upstreamPath: (p) => `/internal/test-helpers/sessions/${enc(p.sessionId ?? '')}/pay`,
    idParam: sessionId,
    testModeOnly: true,
    body: { schema: PayRequest, required: false },
    success: { status: 200, schema: SessionResponse },
    errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND', 'SESSION_NOT_PAYABLE', 'NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/v0/test_helpers/checkout/sessions/:sessionId/expire',
    operationId: 'testHelperExpire',
    summary: 'Test mode: expire a pending session now',
    description:
      'Test keys only (D29): expires a pending session at once, as its expiry time would, firing `checkout.session.expired`.',
    tag: 'Test helpers',
    upstream: 'sessions',
    upstreamPath: (p) => `/internal/test-helpers/sessions/${enc(p.sessionId ?? '')}/expire`,
    idParam: sessionId,
    testModeOnly: true,
    success: { status: 200, schema: SessionResponse },
    errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND', 'SESSION_UPDATE_FAILED', 'NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/v0/test_helpers/orders/:orderId/refunds',
    operationId: 'testHelperCreateRefund',
    summary: 'Test mode: refund an order with the simulated processor answering succeeded, pending or failed',
    description:
      'Test mode only (D29): as `POST /v0/orders/{orderId}/refunds`, with `outcome` choosing what the simulated processor answers; a `pending` one is settled by `POST /v0/test_helpers/refunds/{refundId}/settle`.',
    tag: 'Test helpers',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/test-helpers/orders/${enc(p.orderId ?? '')}/refunds`,
    idParam: orderId,
    testModeOnly: true,
    copyOrderToSession: true,
    answerOnly: 'refund',
    keylessRetry: true,
    body: { schema: TestHelperCreateRefundRequest, required: false },
    success: { status: 201, schema: RefundResponse },
    links: linksTo(refundLinks, 'refundId', '/refund/id'),
    errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'REFUND_FAILED', 'INVALID_REQUEST', 'NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/v0/test_helpers/refunds/:refundId/settle',
    operationId: 'testHelperSettleRefund',
    summary: 'Test mode: settle a pending refund as the processor would, succeeded or failed',
    description:
      "Test mode only (D29): settles a pending refund `succeeded` or `failed`, as the processor's notification would; the same outcome again changes nothing, the other is 400 `REFUND_FAILED`.",
    tag: 'Test helpers',
    upstream: 'orders',
    upstreamPath: (p) => `/internal/test-helpers/refunds/${enc(p.refundId ?? '')}/settle`,
    idParam: refundId,
    testModeOnly: true,
    copyOrderToSession: true,
    answerOnly: 'refund',
    body: { schema: SettleRefundRequest, required: true },
    success: { status: 200, schema: RefundResponse },
    errors: ['INVALID_REFUND_ID', 'REFUND_NOT_FOUND', 'REFUND_FAILED', 'INVALID_REQUEST', 'NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/v0/events',
    operationId: 'listEvents',
    summary: 'List events, newest first',
    description: `Webhook events of this key's organization and mode, newest first, paginated; filters \`type\` and \`sessionId\` (D45's relay polls this), and by their deliveries \`deliveryStatus\` and \`endpointId\` (D51). A list filtered by its deliveries reaches page × limit ≤ ${DELIVERY_SEARCH_MAX} (400 \`INVALID_REQUEST\` past it: narrow the window with \`createdBefore\`), and its \`total\` counts up to ${DELIVERY_SEARCH_MAX}.`,
    tag: 'Events',
    upstream: 'dispatcher',
    upstreamPath: () => '/internal/events',
    query: { schema: ListEventsQuery },
    success: { status: 200, schema: EventListResponse },
    links: linksTo(['getEvent', 'redeliverEvent'], 'eventId', '/events/0/id'),
    errors: ['INVALID_REQUEST'],
  },
  {
    method: 'GET',
    path: '/v0/events/:eventId',
    operationId: 'getEvent',
    summary: 'Retrieve an event with its deliveries and attempts',
    description:
      "The event's body as delivered and every delivery of it with each attempt: time, HTTP status or a coarse reason, duration (D31, D34).",
    tag: 'Events',
    upstream: 'dispatcher',
    upstreamPath: (p) => `/internal/events/${enc(p.eventId ?? '')}`,
    idParam: eventId,
    success: { status: 200, schema: EventResponse },
    errors: ['INVALID_EVENT_ID', 'EVENT_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/v0/events/:eventId/redeliver',
    operationId: 'redeliverEvent',
    summary: 'Deliver an event again (new delivery id, same event id)',
    description:
      'Starts a new delivery of the event to its callback URL (D34): the same event id and body, a new delivery id, retried as any delivery (D31).',
    tag: 'Events',
    upstream: 'dispatcher',
    upstreamPath: (p) => `/internal/events/${enc(p.eventId ?? '')}/redeliver`,
    idParam: eventId,
    body: { schema: RedeliverRequest, required: false },
    success: { status: 202, schema: RedeliverResponse },
    errors: [
      'INVALID_EVENT_ID',
      'EVENT_NOT_FOUND',
      'INVALID_REQUEST',
      'WEBHOOK_ENDPOINT_NOT_FOUND',
      'WEBHOOK_ENDPOINT_DISABLED',
    ],
  },
  {
    method: 'POST',
    path: '/v0/events/recover',
    operationId: 'recoverEvents',
    summary: 'Deliver again, once each, every delivery that failed since a time (at most 14 days back)',
    description:
      'Every delivery of this organization and mode that ended failed at or after `since` gets one new delivery, as redeliver (D44); deliveries recovered before are left out. One recovery per organization and mode runs at a time: another meanwhile is 409 `RECOVERY_IN_PROGRESS` with `Retry-After`.',
    tag: 'Events',
    upstream: 'dispatcher',
    upstreamPath: () => '/internal/events/recover',
    body: { schema: RecoverEventsRequest, required: true },
    success: { status: 202, schema: RecoverEventsResponse },
    errors: [
      'INVALID_REQUEST',
      'PAYLOAD_TOO_LARGE',
      'RECOVERY_IN_PROGRESS',
      'WEBHOOK_ENDPOINT_NOT_FOUND',
      'WEBHOOK_ENDPOINT_DISABLED',
    ],
  },
  {
    method: 'GET',
    path: '/v0/event_types',
    operationId: 'listEventTypes',
    summary: 'List the event types, each with its description and the JSON Schema of its body (D49)',
    description:
      "Every event type this API sends, with what it means and the JSON Schema of its `data` (D49): the catalog is a contract, a type's body only gains optional fields. Paged by `page` and `limit` (at most 100).",
    tag: 'Events',
    upstream: 'dispatcher',
    upstreamPath: () => '/internal/event-types',
    query: { schema: ListEventTypesQuery },
    success: { status: 200, schema: EventTypeList },
    errors: ['INVALID_REQUEST'],
  },
  {
    method: 'GET',
    path: '/v0/webhook_endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, newest first (D50)',
    description:
      "This mode's webhook endpoints, newest first, without their secrets (D50). Paged by `page` and `limit` (at most 100); a mode has at most 16.",
    tag: 'Webhook endpoints',
    upstream: 'dispatcher',
    upstreamPath: () => '/internal/webhook-endpoints',
    query: { schema: ListWebhookEndpointsQuery },
    success: { status: 200, schema: WebhookEndpointList },
    links: linksTo(endpointLinks, 'endpointId', '/endpoints/0/id'),
    errors: ['INVALID_REQUEST'],
  },
  {
    method: 'POST',
    path: '/v0/webhook_endpoints',
    operationId: 'createWebhookEndpoint',
    summary:
      'Register a webhook endpoint: it receives every event of the types it is subscribed to, signed with its own secret, shown only in this answer (D50; at most 16 per mode)',
    description:
      'Registers a URL and the event types it receives (`["*"]` for every type, those added later too). Its signing secret is in this answer only; deliveries are signed with it (Standard Webhooks). At most 16 endpoints per mode: a 17th is 400 `WEBHOOK_ENDPOINT_LIMIT_REACHED`. With an `Idempotency-Key`, a retry gets the same answer (D42), the same endpoint, even once that endpoint is deleted: its id then answers 404 `WEBHOOK_ENDPOINT_NOT_FOUND`; a retry after a 5xx is the same endpoint with the same secret, never a second one.',
    tag: 'Webhook endpoints',
    upstream: 'dispatcher',
    upstreamPath: () => '/internal/webhook-endpoints',
    body: { schema: CreateWebhookEndpointRequest, required: true },
    success: { status: 201, schema: WebhookEndpointSecretResponse },
    links: linksTo(endpointLinks, 'endpointId', '/endpoint/id'),
    errors: [
      'WEBHOOK_ENDPOINT_CREATE_FAILED',
      'WEBHOOK_ENDPOINT_LIMIT_REACHED',
      'INVALID_REQUEST',
      'PAYLOAD_TOO_LARGE',
    ],
  },
  {
    method: 'GET',
    path: '/v0/webhook_endpoints/:endpointId',
    operationId: 'getWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint (without its secret)',
    description:
      "One endpoint of this mode, without its secret (D50); another organization's or mode's is 404 `WEBHOOK_ENDPOINT_NOT_FOUND`.",
    tag: 'Webhook endpoints',
    upstream: 'dispatcher',
    upstreamPath: (p) => `/internal/webhook-endpoints/${enc(p.endpointId ?? '')}`,
    idParam: endpointId,
    success: { status: 200, schema: WebhookEndpointResponse },
    errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  {
    method: 'PATCH',
    path: '/v0/webhook_endpoints/:endpointId',
    operationId: 'updateWebhookEndpoint',
    summary:
      'Change its url, enabledEvents, description or metadata, or disable it (disabled: true) and enable it again',
    description:
      'Changes what is sent (only the fields given). `disabled: true` stops deliveries to it (those still waiting end `failed`, unsent); after `disabled: false`, what it missed comes back with recover and its `endpointId` (D50, D44).',
    tag: 'Webhook endpoints',
    upstream: 'dispatcher',
    upstreamPath: (p) => `/internal/webhook-endpoints/${enc(p.endpointId ?? '')}`,
    idParam: endpointId,
    body: { schema: UpdateWebhookEndpointRequest, required: false },
    success: { status: 200, schema: WebhookEndpointResponse },
    errors: [
      'INVALID_WEBHOOK_ENDPOINT_ID',
      'WEBHOOK_ENDPOINT_NOT_FOUND',
      'WEBHOOK_ENDPOINT_UPDATE_FAILED',
      'INVALID_REQUEST',
    ],
  },
  {
    method: 'DELETE',
    path: '/v0/webhook_endpoints/:endpointId',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint: nothing more is sent to it, its pending deliveries included',
    description:
      'Removes the endpoint: nothing more is sent to it, deliveries still waiting included (they end `failed`, unsent) (D50).',
    tag: 'Webhook endpoints',
    upstream: 'dispatcher',
    upstreamPath: (p) => `/internal/webhook-endpoints/${enc(p.endpointId ?? '')}`,
    idParam: endpointId,
    success: { status: 200, schema: WebhookEndpointDeleted },
    errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/v0/webhook_endpoints/:endpointId/rotate_secret',
    operationId: 'rotateWebhookEndpointSecret',
    summary:
      'Give the endpoint a new signing secret, shown only in this answer; the old one keeps signing beside it for 24 hours (D50)',
    description:
      'A new signing secret, shown only in this answer. For 24 hours deliveries carry a signature by each secret, so a receiver can switch without missing one (D50).',
    tag: 'Webhook endpoints',
    upstream: 'dispatcher',
    upstreamPath: (p) => `/internal/webhook-endpoints/${enc(p.endpointId ?? '')}/rotate-secret`,
    idParam: endpointId,
    noIdempotencyKey: true,
    success: { status: 200, schema: WebhookEndpointSecretResponse },
    errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/v0/dashboard/login_links',
    operationId: 'createDashboardLoginLink',
    summary: "Create a single-use dashboard login link (valid 5 minutes) for this key's organization and mode",
    description:
      "A link to the merchant dashboard (D47) for this key's organization and mode. Opening it shows a page naming them, with a Log in button: only the button uses the link, once, within 5 minutes, and starts a 12-hour browser session, so a mail or chat scanner that fetches the link neither uses it nor gets a session. Revoking the key ends the session. Takes no `Idempotency-Key`: the answer is a secret, and each call simply makes a new link.",
    tag: 'Dashboard',
    upstream: 'gateway',
    upstreamPath: () => '',
    noIdempotencyKey: true,
    success: { status: 201, schema: LoginLinkResponse },
    errors: [],
  },
];

/** Codes every POST can answer besides its own: the Idempotency-Key ones (D42). */
export const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = [
  'INVALID_REQUEST',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
];

/** Codes every authenticated route can answer (D5, D7). */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'ORGANIZATION_NOT_FOUND',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
];
