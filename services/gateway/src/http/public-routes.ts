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
  SessionResponse,
  UpdateOrderRequest,
  UpdateSessionRequest,
  type IdPrefix,
} from '@checkout/contracts';

export type Upstream = 'orders' | 'sessions' | 'dispatcher';
/** 'gateway': answered by the gateway itself (D47's login links), with a router of its own; not forwarded. */
export type RouteOwner = Upstream | 'gateway';

export interface PublicRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Koa router path. */
  path: string;
  operationId: string;
  summary: string;
  tag: 'Orders' | 'Checkout sessions' | 'Test helpers' | 'Events' | 'Webhook endpoints' | 'Dashboard';
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
}

const orderLinks = ['getOrder', 'updateOrder', 'cancelOrder'];
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
    path: '/v0/checkout/sessions',
    operationId: 'createCheckoutSession',
    summary: 'Create an order and its hosted checkout session',
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
    tag: 'Test helpers',
    upstream: 'sessions',
    upstreamPath: (p) => `/internal/test-helpers/sessions/${enc(p.sessionId ?? '')}/expire`,
    idParam: sessionId,
    testModeOnly: true,
    success: { status: 200, schema: SessionResponse },
    errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND', 'SESSION_UPDATE_FAILED', 'NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/v0/events',
    operationId: 'listEvents',
    summary: 'List events, newest first',
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
