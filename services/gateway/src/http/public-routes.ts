import {
  CreateOrderRequest,
  CreateRefundRequest,
  CreateSessionRequest,
  CheckoutSettingsResponse,
  CreateWebhookEndpointRequest,
  DELIVERY_SEARCH_MAX,
  EventListResponse,
  EventResponse,
  EventTypeList,
  ListEventsQuery,
  ListEventTypesQuery,
  ListOrdersQuery,
  ListRefundsQuery,
  ListWebhookEndpointsQuery,
  LoginLinkResponse,
  OrderListResponse,
  OrderResponse,
  PayRequest,
  RecoverEventsRequest,
  RecoverEventsResponse,
  RedeliverRequest,
  RedeliverResponse,
  RefundListResponse,
  RefundResponse,
  SessionResponse,
  SettleRefundRequest,
  TestHelperCreateRefundRequest,
  UpdateCheckoutSettingsRequest,
  UpdateOrderRequest,
  UpdateSessionRequest,
  UpdateWebhookEndpointRequest,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
} from '@checkout/contracts';
import { declareRoutes, LINKS, linksTo, ORDER_INPUT_ERRORS, type PublicRoute } from './public-route';

export { COMMON_ERRORS, IDEMPOTENCY_ERRORS, type PublicRoute, type Upstream } from './public-route';

/**
 * The public API in one table: the gateway routes, authenticates, validates and forwards from it, and the
 * OpenAPI document is generated from it, so the document cannot drift from what the gateway accepts. Each route
 * says its method, public path and the owner's path it is forwarded to (public-route.ts, `RouteDeclaration`).
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  ...declareRoutes({ tag: 'Orders', upstream: 'orders' }, [
    {
      route: 'GET /v0/orders -> /internal/orders',
      operationId: 'listOrders',
      summary: 'List orders',
      description:
        "Orders of this key's organization and mode, newest first (D20: `createdAt` descending, then id), paginated with `page` and `limit`. Filters: `status`, `paymentStatus`, `locationId`, `externalId`; a malformed `locationId` is 400 `INVALID_LOCATION_ID`.",
      query: { schema: ListOrdersQuery },
      success: { status: 200, schema: OrderListResponse },
      errors: ['ORDERS_FETCH_FAILED', 'INVALID_LOCATION_ID'],
    },
    {
      route: 'POST /v0/orders -> /internal/orders',
      operationId: 'createOrder',
      summary: 'Create an order',
      description:
        'Creates an order from items, taxes, discounts and an optional tip; the server computes every amount (D17). `externalId` is unique per organization and mode, also under concurrency (D37: 409 `DUPLICATE_EXTERNAL_ID`). A customer given by email is found or created (D11). Send an `Idempotency-Key` to retry safely (D42).',
      body: { schema: CreateOrderRequest, required: true },
      success: { status: 201, schema: OrderResponse },
      links: linksTo(LINKS.order, 'orderId', '/order/id'),
      errors: ['ORDER_CREATE_FAILED', ...ORDER_INPUT_ERRORS],
    },
    {
      route: 'GET /v0/orders/:orderId -> /internal/orders/:orderId',
      operationId: 'getOrder',
      summary: 'Retrieve an order',
      description:
        "The order with its computed amounts and payment status. Another organization's or the other mode's id is 404, as an unknown one (D4).",
      success: { status: 200, schema: OrderResponse },
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND'],
    },
    {
      route: 'PATCH /v0/orders/:orderId -> /internal/orders/:orderId',
      operationId: 'updateOrder',
      summary: 'Update an open, unpaid order',
      description:
        "Replaces the order's items, taxes or discounts, or changes its customer, shipping address or metadata, while it is open and nothing has been paid; amounts are computed again (D17). An omitted field is unchanged; `externalId` cannot change. A checkout session showing this order shows the change on the merchant's next read (D46).",
      copyOrderToSession: true,
      body: { schema: UpdateOrderRequest, required: false },
      success: { status: 200, schema: OrderResponse },
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'ORDER_UPDATE_FAILED', 'ORDER_NOT_EDITABLE', 'INVALID_REQUEST'],
    },
    {
      route: 'POST /v0/orders/:orderId/cancel -> /internal/orders/:orderId/cancel',
      operationId: 'cancelOrder',
      summary: 'Cancel an open, unpaid order (idempotent)',
      description:
        'Cancels an open order with nothing paid; cancelling a cancelled order answers it again unchanged (D25). A checkout session of the order becomes `cancelled` before the answer (D46).',
      copyOrderToSession: true,
      success: { status: 200, schema: OrderResponse },
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'ORDER_CANCEL_FAILED'],
    },
  ]),
  ...declareRoutes({ tag: 'Refunds', upstream: 'orders' }, [
    {
      route: 'POST /v0/orders/:orderId/refunds -> /internal/orders/:orderId/refunds',
      operationId: 'createRefund',
      summary:
        'Refund money an order received (D48): at most what is refundable, whatever the order status; test mode succeeds at once, live mode stays pending until the processor settles it',
      description:
        "`amount` (minor units) is optional: without it, all that is refundable (amounts.paid minus succeeded and pending refunds). More than that, or an order that received nothing, is 400 `REFUND_FAILED`; at most 100 refunds per order. The order's `amounts.refunded` counts succeeded refunds. With an `Idempotency-Key`, a retry is the same refund (D42); without one, a retry with the same body of a refund answered 5xx (or not at all) is the same refund too, while an identical refund after an answered one is a new refund.",
      copyOrderToSession: true,
      answerOnly: 'refund',
      keylessRetry: true,
      body: { schema: CreateRefundRequest, required: false },
      success: { status: 201, schema: RefundResponse },
      links: linksTo(LINKS.refund, 'refundId', '/refund/id'),
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'REFUND_FAILED', 'INVALID_REQUEST'],
    },
    {
      route: 'GET /v0/orders/:orderId/refunds -> /internal/orders/:orderId/refunds',
      operationId: 'listRefunds',
      summary: "List an order's refunds, newest first",
      description:
        "The order's refunds, newest first, paged as orders are (`page`, `limit` at most 100; an order has at most 100).",
      query: { schema: ListRefundsQuery },
      success: { status: 200, schema: RefundListResponse },
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'INVALID_REQUEST'],
    },
    {
      route: 'GET /v0/refunds/:refundId -> /internal/refunds/:refundId',
      operationId: 'getRefund',
      summary: 'Retrieve a refund',
      description:
        "One refund of this organization and mode; another's, or the other mode's, is 404 `REFUND_NOT_FOUND`.",
      success: { status: 200, schema: RefundResponse },
      errors: ['INVALID_REFUND_ID', 'REFUND_NOT_FOUND'],
    },
  ]),
  ...declareRoutes({ tag: 'Checkout sessions', upstream: 'sessions' }, [
    {
      route: 'POST /v0/checkout/sessions -> /internal/sessions',
      operationId: 'createCheckoutSession',
      summary: 'Create an order and its hosted checkout session',
      description:
        "Creates an order (as `POST /v0/orders`) and a checkout session for it in one call: the answer carries the hosted page's `url` (D21, D22). The session expires after `expiresInMinutes`; its events go to `callbackUrl` or the organization's default (D30, D31).",
      forwardCheckoutSettings: true,
      body: { schema: CreateSessionRequest, required: true },
      success: { status: 201, schema: SessionResponse },
      links: {
        ...linksTo(LINKS.session, 'sessionId', '/session/id'),
        ...linksTo(LINKS.order, 'orderId', '/session/order/id'),
      },
      errors: ['SESSION_CREATION_FAILED', ...ORDER_INPUT_ERRORS],
    },
    {
      route: 'GET /v0/checkout/sessions/:sessionId -> /internal/sessions/:sessionId',
      operationId: 'getCheckoutSession',
      summary: 'Retrieve a checkout session with its current order',
      description: 'The session with its order as it is now (D46: a write the merchant was answered for is shown).',
      success: { status: 200, schema: SessionResponse },
      errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND'],
    },
    {
      route: 'PATCH /v0/checkout/sessions/:sessionId -> /internal/sessions/:sessionId',
      operationId: 'updateCheckoutSession',
      summary: 'Extend a pending session or merge sessionData',
      description:
        "`extendExpiry` adds minutes to the expiry of a pending session (the whole lifetime at most 7 days, D23); `sessionData` is merged into the session's data key by key (shallow), in any status, within its key and size limits. Otherwise 400 `SESSION_UPDATE_FAILED`.",
      body: { schema: UpdateSessionRequest, required: false },
      success: { status: 200, schema: SessionResponse },
      errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND', 'SESSION_UPDATE_FAILED', 'INVALID_REQUEST'],
    },
  ]),
  ...declareRoutes({ tag: 'Test helpers', upstream: 'sessions' }, [
    {
      route: 'POST /v0/test_helpers/checkout/sessions/:sessionId/pay -> /internal/test-helpers/sessions/:sessionId/pay',
      operationId: 'testHelperPay',
      summary: 'Test mode: pay a session through the simulated processors',
      description:
        "Test keys only (a live key gets 404, D29): pays the session through the hosted page's own code path with `method` and `outcome` (declined, or succeeded in full or with `amount`); a payment that pays the order completes the session and fires `checkout.session.completed`.",
      testModeOnly: true,
      body: { schema: PayRequest, required: false },
      success: { status: 200, schema: SessionResponse },
      errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND', 'SESSION_NOT_PAYABLE', 'NOT_FOUND'],
    },
    {
      route:
        'POST /v0/test_helpers/checkout/sessions/:sessionId/expire -> /internal/test-helpers/sessions/:sessionId/expire',
      operationId: 'testHelperExpire',
      summary: 'Test mode: expire a pending session now',
      description:
        'Test keys only (D29): expires a pending session at once, as its expiry time would, firing `checkout.session.expired`.',
      testModeOnly: true,
      success: { status: 200, schema: SessionResponse },
      errors: ['INVALID_SESSION_ID', 'SESSION_NOT_FOUND', 'SESSION_UPDATE_FAILED', 'NOT_FOUND'],
    },
  ]),
  ...declareRoutes({ tag: 'Test helpers', upstream: 'orders' }, [
    {
      route: 'POST /v0/test_helpers/orders/:orderId/refunds -> /internal/test-helpers/orders/:orderId/refunds',
      operationId: 'testHelperCreateRefund',
      summary: 'Test mode: refund an order with the simulated processor answering succeeded, pending or failed',
      description:
        'Test mode only (D29): as `POST /v0/orders/{orderId}/refunds`, with `outcome` choosing what the simulated processor answers; a `pending` one is settled by `POST /v0/test_helpers/refunds/{refundId}/settle`.',
      testModeOnly: true,
      copyOrderToSession: true,
      answerOnly: 'refund',
      keylessRetry: true,
      body: { schema: TestHelperCreateRefundRequest, required: false },
      success: { status: 201, schema: RefundResponse },
      links: linksTo(LINKS.refund, 'refundId', '/refund/id'),
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'REFUND_FAILED', 'INVALID_REQUEST', 'NOT_FOUND'],
    },
    {
      route: 'POST /v0/test_helpers/refunds/:refundId/settle -> /internal/test-helpers/refunds/:refundId/settle',
      operationId: 'testHelperSettleRefund',
      summary: 'Test mode: settle a pending refund as the processor would, succeeded or failed',
      description:
        "Test mode only (D29): settles a pending refund `succeeded` or `failed`, as the processor's notification would; the same outcome again changes nothing, the other is 400 `REFUND_FAILED`.",
      testModeOnly: true,
      copyOrderToSession: true,
      answerOnly: 'refund',
      body: { schema: SettleRefundRequest, required: true },
      success: { status: 200, schema: RefundResponse },
      errors: ['INVALID_REFUND_ID', 'REFUND_NOT_FOUND', 'REFUND_FAILED', 'INVALID_REQUEST', 'NOT_FOUND'],
    },
  ]),
  ...declareRoutes({ tag: 'Events', upstream: 'dispatcher' }, [
    {
      route: 'GET /v0/events -> /internal/events',
      operationId: 'listEvents',
      summary: 'List events, newest first',
      description: `Webhook events of this key's organization and mode, newest first, paginated; filters \`type\` and \`sessionId\` (D45's relay polls this), and by their deliveries \`deliveryStatus\` and \`endpointId\` (D51). A list filtered by its deliveries reaches page × limit ≤ ${DELIVERY_SEARCH_MAX} (400 \`INVALID_REQUEST\` past it: narrow the window with \`createdBefore\`), and its \`total\` counts up to ${DELIVERY_SEARCH_MAX}.`,
      query: { schema: ListEventsQuery },
      success: { status: 200, schema: EventListResponse },
      links: linksTo(['getEvent', 'redeliverEvent'], 'eventId', '/events/0/id'),
      errors: ['INVALID_REQUEST'],
    },
    {
      route: 'GET /v0/events/:eventId -> /internal/events/:eventId',
      operationId: 'getEvent',
      summary: 'Retrieve an event with its deliveries and attempts',
      description:
        "The event's body as delivered and every delivery of it with each attempt: time, HTTP status or a coarse reason, duration (D31, D34).",
      success: { status: 200, schema: EventResponse },
      errors: ['INVALID_EVENT_ID', 'EVENT_NOT_FOUND'],
    },
    {
      route: 'POST /v0/events/:eventId/redeliver -> /internal/events/:eventId/redeliver',
      operationId: 'redeliverEvent',
      summary: 'Deliver an event again (new delivery id, same event id)',
      description:
        'Starts a new delivery of the event to its callback URL (D34): the same event id and body, a new delivery id, retried as any delivery (D31).',
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
      route: 'POST /v0/events/recover -> /internal/events/recover',
      operationId: 'recoverEvents',
      summary: 'Deliver again, once each, every delivery that failed since a time (at most 14 days back)',
      description:
        'Every delivery of this organization and mode that ended failed at or after `since` gets one new delivery, as redeliver (D44); deliveries recovered before are left out. One recovery per organization and mode runs at a time: another meanwhile is 409 `RECOVERY_IN_PROGRESS` with `Retry-After`.',
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
      route: 'GET /v0/event_types -> /internal/event-types',
      operationId: 'listEventTypes',
      summary: 'List the event types, each with its description and the JSON Schema of its body (D49)',
      description:
        "Every event type this API sends, with what it means and the JSON Schema of its `data` (D49): the catalog is a contract, a type's body only gains optional fields. Paged by `page` and `limit` (at most 100).",
      query: { schema: ListEventTypesQuery },
      success: { status: 200, schema: EventTypeList },
      errors: ['INVALID_REQUEST'],
    },
  ]),
  ...declareRoutes({ tag: 'Webhook endpoints', upstream: 'dispatcher' }, [
    {
      route: 'GET /v0/webhook_endpoints -> /internal/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints, newest first (D50)',
      description:
        "This mode's webhook endpoints, newest first, without their secrets (D50). Paged by `page` and `limit` (at most 100); a mode has at most 16.",
      query: { schema: ListWebhookEndpointsQuery },
      success: { status: 200, schema: WebhookEndpointList },
      links: linksTo(LINKS.endpoint, 'endpointId', '/endpoints/0/id'),
      errors: ['INVALID_REQUEST'],
    },
    {
      route: 'POST /v0/webhook_endpoints -> /internal/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      summary:
        'Register a webhook endpoint: it receives every event of the types it is subscribed to, signed with its own secret, shown only in this answer (D50; at most 16 per mode)',
      description:
        'Registers a URL and the event types it receives (`["*"]` for every type, those added later too). Its signing secret is in this answer only; deliveries are signed with it (Standard Webhooks). At most 16 endpoints per mode: a 17th is 400 `WEBHOOK_ENDPOINT_LIMIT_REACHED`. With an `Idempotency-Key`, a retry gets the same answer (D42), the same endpoint, even once that endpoint is deleted: its id then answers 404 `WEBHOOK_ENDPOINT_NOT_FOUND`; a retry after a 5xx is the same endpoint with the same secret, never a second one.',
      body: { schema: CreateWebhookEndpointRequest, required: true },
      success: { status: 201, schema: WebhookEndpointSecretResponse },
      links: linksTo(LINKS.endpoint, 'endpointId', '/endpoint/id'),
      errors: [
        'WEBHOOK_ENDPOINT_CREATE_FAILED',
        'WEBHOOK_ENDPOINT_LIMIT_REACHED',
        'INVALID_REQUEST',
        'PAYLOAD_TOO_LARGE',
      ],
    },
    {
      route: 'GET /v0/webhook_endpoints/:endpointId -> /internal/webhook-endpoints/:endpointId',
      operationId: 'getWebhookEndpoint',
      summary: 'Retrieve a webhook endpoint (without its secret)',
      description:
        "One endpoint of this mode, without its secret (D50); another organization's or mode's is 404 `WEBHOOK_ENDPOINT_NOT_FOUND`.",
      success: { status: 200, schema: WebhookEndpointResponse },
      errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    },
    {
      route: 'PATCH /v0/webhook_endpoints/:endpointId -> /internal/webhook-endpoints/:endpointId',
      operationId: 'updateWebhookEndpoint',
      summary:
        'Change its url, enabledEvents, description or metadata, or disable it (disabled: true) and enable it again',
      description:
        'Changes what is sent (only the fields given). `disabled: true` stops deliveries to it (those still waiting end `failed`, unsent); after `disabled: false`, what it missed comes back with recover and its `endpointId` (D50, D44).',
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
      route: 'DELETE /v0/webhook_endpoints/:endpointId -> /internal/webhook-endpoints/:endpointId',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint: nothing more is sent to it, its pending deliveries included',
      description:
        'Removes the endpoint: nothing more is sent to it, deliveries still waiting included (they end `failed`, unsent) (D50).',
      success: { status: 200, schema: WebhookEndpointDeleted },
      errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    },
    {
      route:
        'POST /v0/webhook_endpoints/:endpointId/rotate_secret -> /internal/webhook-endpoints/:endpointId/rotate-secret',
      operationId: 'rotateWebhookEndpointSecret',
      summary:
        'Give the endpoint a new signing secret, shown only in this answer; the old one keeps signing beside it for 24 hours (D50)',
      description:
        'A new signing secret, shown only in this answer. For 24 hours deliveries carry a signature by each secret, so a receiver can switch without missing one (D50).',
      noIdempotencyKey: true,
      success: { status: 200, schema: WebhookEndpointSecretResponse },
      errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    },
  ]),
  ...declareRoutes({ tag: 'Checkout settings', upstream: 'gateway' }, [
    {
      route: 'GET /v0/checkout_settings',
      operationId: 'getCheckoutSettings',
      summary: "The hosted page's brand and default locale for this key's organization and mode",
      description:
        "What the hosted page shows of the merchant: `displayName` (else the organization's name), `logoUrl`, `brandColor` for its buttons, and `defaultLocale` for sessions created without a `locale`. An unset field is null.",
      success: { status: 200, schema: CheckoutSettingsResponse },
      errors: [],
    },
    {
      route: 'PATCH /v0/checkout_settings',
      operationId: 'updateCheckoutSettings',
      summary: "Change the hosted page's brand or default locale",
      description:
        'An absent field stays as it is; null clears it. `logoUrl` must be https. Any `brandColor` is taken: the page picks black or white text for it, and shades the colour where neither reaches a 4.5:1 contrast. Sessions created afterwards show the change; open ones keep what they were created with.',
      body: { schema: UpdateCheckoutSettingsRequest, required: true },
      success: { status: 200, schema: CheckoutSettingsResponse },
      errors: ['INVALID_REQUEST'],
    },
  ]),
  ...declareRoutes({ tag: 'Dashboard', upstream: 'gateway' }, [
    {
      route: 'POST /v0/dashboard/login_links',
      operationId: 'createDashboardLoginLink',
      summary: "Create a single-use dashboard login link (valid 5 minutes) for this key's organization and mode",
      description:
        "A link to the merchant dashboard (D47) for this key's organization and mode. Opening it shows a page naming them, with a Log in button: only the button uses the link, once, within 5 minutes, and starts a 12-hour browser session, so a mail or chat scanner that fetches the link neither uses it nor gets a session. Revoking the key ends the session. Takes no `Idempotency-Key`: the answer is a secret, and each call simply makes a new link.",
      noIdempotencyKey: true,
      success: { status: 201, schema: LoginLinkResponse },
      errors: [],
    },
  ]),
];
