import {
  BalanceQuery,
  BalanceResponse,
  BalanceTransactionListResponse,
  BalanceTransactionResponse,
  CreateOrderRequest,
  CreateRefundRequest,
  CheckoutSettingsResponse,
  CreateSessionRequest,
  ListBalanceTransactionsQuery,
  ListOrdersQuery,
  ListRefundsQuery,
  LoginLinkResponse,
  OrderListResponse,
  OrderResponse,
  PayRequest,
  RefundListResponse,
  RefundResponse,
  SessionResponse,
  SettleRefundRequest,
  TestHelperCreateRefundRequest,
  UpdateCheckoutSettingsRequest,
  UpdateOrderRequest,
  UpdateSessionRequest,
} from '@checkout/contracts';
import { REPORT_PUBLIC_ROUTES } from './report-public-routes';
import { WEBHOOK_PUBLIC_ROUTES } from './webhook-public-routes';
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
        "Orders of this key's organization and mode, newest first (D20: `createdAt` descending, " +
        'then id), paginated with `page` and `limit`. Filters: `status`, `paymentStatus`, ' +
        '`locationId`, `externalId`; a malformed `locationId` is 400 `INVALID_LOCATION_ID`.',
      query: { schema: ListOrdersQuery },
      success: { status: 200, schema: OrderListResponse },
      errors: ['ORDERS_FETCH_FAILED', 'INVALID_LOCATION_ID'],
    },
    {
      route: 'POST /v0/orders -> /internal/orders',
      operationId: 'createOrder',
      recordsEvents: true,
      summary: 'Create an order',
      description:
        'Creates an order from items, taxes, discounts and an optional tip; the server computes ' +
        'every amount (D17). `externalId` is unique per organization and mode, also under ' +
        'concurrency (D37: 409 `DUPLICATE_EXTERNAL_ID`). A customer given by email is found or ' +
        'created (D11). Send an `Idempotency-Key` to retry safely (D42).',
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
      recordsEvents: true,
      summary: 'Update an open, unpaid order',
      description:
        "Replaces the order's items, taxes or discounts, or changes its customer, shipping " +
        'address or metadata, while it is open and nothing has been paid; amounts are computed ' +
        'again (D17). An omitted field is unchanged; `externalId` cannot change. A checkout ' +
        "session showing this order shows the change on the merchant's next read (D46).",
      copyOrderToSession: true,
      body: { schema: UpdateOrderRequest, required: false },
      success: { status: 200, schema: OrderResponse },
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'ORDER_UPDATE_FAILED', 'ORDER_NOT_EDITABLE', 'INVALID_REQUEST'],
    },
    {
      route: 'POST /v0/orders/:orderId/cancel -> /internal/orders/:orderId/cancel',
      operationId: 'cancelOrder',
      recordsEvents: true,
      summary: 'Cancel an open, unpaid order (idempotent)',
      description:
        'Cancels an open order with nothing paid; cancelling a cancelled order answers it again ' +
        'unchanged (D25). A checkout session of the order becomes `cancelled` before the answer ' +
        '(D46).',
      copyOrderToSession: true,
      success: { status: 200, schema: OrderResponse },
      errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'ORDER_CANCEL_FAILED'],
    },
  ]),
  ...declareRoutes({ tag: 'Refunds', upstream: 'orders' }, [
    {
      route: 'POST /v0/orders/:orderId/refunds -> /internal/orders/:orderId/refunds',
      operationId: 'createRefund',
      recordsEvents: true,
      summary:
        'Refund money an order received (D48): at most what is refundable, whatever the order ' +
        'status; test mode succeeds at once, live mode stays pending until the processor settles ' +
        'it',
      description:
        '`amount` (minor units) is optional: without it, all that is refundable (amounts.paid ' +
        'minus succeeded and pending refunds). More than that, or an order that received nothing, ' +
        "is 400 `REFUND_FAILED`; at most 100 refunds per order. The order's `amounts.refunded` " +
        'counts succeeded refunds. With an `Idempotency-Key`, a retry is the same refund (D42); ' +
        'without one, a retry with the same body of a refund answered 5xx (or not at all) is the ' +
        'same refund too, while an identical refund after an answered one is a new refund.',
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
  ...declareRoutes({ tag: 'Balance', upstream: 'orders' }, [
    {
      route: 'GET /v0/balance_transactions -> /internal/balance-transactions',
      operationId: 'listBalanceTransactions',
      summary: 'List balance transactions, newest first',
      description:
        "One immutable line per money movement of this key's organization and mode (D52): a payment applied " +
        '(`type: payment`, amount > 0) or a refund that succeeded (`type: refund`, amount < 0). Newest first ' +
        "(`createdAt`, the movement's time, descending, then id), paginated with `page` and `limit`. Filters: " +
        '`type`, `orderId`, `createdAfter`, `createdBefore` (the window [createdAfter, createdBefore)); a malformed ' +
        'one is 400 `INVALID_REQUEST` with details. A movement shows here within seconds of its order event.',
      query: { schema: ListBalanceTransactionsQuery },
      success: { status: 200, schema: BalanceTransactionListResponse },
      links: linksTo(['getBalanceTransaction'], 'balanceTransactionId', '/balanceTransactions/0/id'),
      errors: ['INVALID_REQUEST'],
    },
    {
      route:
        'GET /v0/balance_transactions/:balanceTransactionId -> /internal/balance-transactions/:balanceTransactionId',
      operationId: 'getBalanceTransaction',
      summary: 'Retrieve a balance transaction',
      description:
        "One line of this organization and mode; another organization's or the other mode's id is 404 " +
        '`BALANCE_TRANSACTION_NOT_FOUND`, as an unknown one (D4).',
      success: { status: 200, schema: BalanceTransactionResponse },
      errors: ['INVALID_BALANCE_TRANSACTION_ID', 'BALANCE_TRANSACTION_NOT_FOUND'],
    },
    {
      route: 'GET /v0/balance -> /internal/balance',
      operationId: 'getBalance',
      summary: "The balance of this key's organization and mode",
      description:
        'The totals of every balance transaction (D52): `payments`, `refunds` (a positive number), `net` and ' +
        '`count`, in one currency (`currency`, default USD). `asOf`: every line recorded before it is in the ' +
        'totals, so the balance equals the sum of the lines recorded up to `asOf`. One read, at any number of lines.',
      query: { schema: BalanceQuery },
      success: { status: 200, schema: BalanceResponse },
      errors: ['INVALID_REQUEST'],
    },
  ]),
  ...declareRoutes({ tag: 'Checkout sessions', upstream: 'sessions' }, [
    {
      route: 'POST /v0/checkout/sessions -> /internal/sessions',
      operationId: 'createCheckoutSession',
      recordsEvents: true,
      summary: 'Create an order and its hosted checkout session',
      description:
        'Creates an order (as `POST /v0/orders`) and a checkout session for it in one call: the ' +
        "answer carries the hosted page's `url` (D21, D22). The session expires after " +
        "`expiresInMinutes`; its events go to `callbackUrl` or the organization's default (D30, " +
        'D31).',
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
        '`extendExpiry` adds minutes to the expiry of a pending session (the whole lifetime at ' +
        "most 7 days, D23); `sessionData` is merged into the session's data key by key (shallow), " +
        'in any status, within its key and size limits. Otherwise 400 `SESSION_UPDATE_FAILED`.',
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
        "Test keys only (a live key gets 404, D29): pays the session through the hosted page's " +
        'own code path with `method` and `outcome` (declined, or succeeded in full or with ' +
        '`amount`); a payment that pays the order completes the session and fires ' +
        '`checkout.session.completed`.',
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
      recordsEvents: true,
      summary: 'Test mode: refund an order with the simulated processor answering succeeded, pending or failed',
      description:
        'Test mode only (D29): as `POST /v0/orders/{orderId}/refunds`, with `outcome` choosing ' +
        'what the simulated processor answers; a `pending` one is settled by `POST ' +
        '/v0/test_helpers/refunds/{refundId}/settle`.',
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
        'Test mode only (D29): settles a pending refund `succeeded` or `failed`, as the ' +
        "processor's notification would; the same outcome again changes nothing, the other is 400 " +
        '`REFUND_FAILED`.',
      testModeOnly: true,
      copyOrderToSession: true,
      answerOnly: 'refund',
      body: { schema: SettleRefundRequest, required: true },
      success: { status: 200, schema: RefundResponse },
      errors: ['INVALID_REFUND_ID', 'REFUND_NOT_FOUND', 'REFUND_FAILED', 'INVALID_REQUEST', 'NOT_FOUND'],
    },
  ]),
  ...REPORT_PUBLIC_ROUTES,
  ...WEBHOOK_PUBLIC_ROUTES,
  ...declareRoutes({ tag: 'Checkout settings', upstream: 'gateway' }, [
    {
      route: 'GET /v0/checkout_settings',
      operationId: 'getCheckoutSettings',
      summary: "The hosted page's brand and default locale for this key's organization and mode",
      description:
        "What the hosted page shows of the merchant: `displayName` (else the organization's name), `logoUrl`, " +
        '`brandColor` for its buttons, and `defaultLocale` for sessions created without a `locale`. An unset field ' +
        'is null.',
      success: { status: 200, schema: CheckoutSettingsResponse },
      errors: [],
    },
    {
      route: 'PATCH /v0/checkout_settings',
      operationId: 'updateCheckoutSettings',
      summary: "Change the hosted page's brand or default locale",
      description:
        'An absent field stays as it is; null clears it. `logoUrl` must be https. Any `brandColor` is taken: the ' +
        'page picks black or white text for it, whichever contrasts more (one of them reaches 4.5:1 on any colour). ' +
        'Sessions created afterwards show the change; open ones keep what they were created with.',
      body: { schema: UpdateCheckoutSettingsRequest, required: false },
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
        "A link to the merchant dashboard (D47) for this key's organization and mode. Opening it " +
        'shows a page naming them, with a Log in button: only the button uses the link, once, ' +
        'within 5 minutes, and starts a 12-hour browser session, so a mail or chat scanner that ' +
        'fetches the link neither uses it nor gets a session. Revoking the key ends the session. ' +
        'Takes no `Idempotency-Key`: the answer is a secret, and each call simply makes a new ' +
        'link.',
      noIdempotencyKey: true,
      success: { status: 201, schema: LoginLinkResponse },
      errors: [],
    },
  ]),
];
