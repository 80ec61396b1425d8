import type { z } from 'zod';
import type { ErrorCode } from '@checkout/errors';
import type { IdPrefix } from '@checkout/contracts';

export type Upstream = 'orders' | 'sessions' | 'dispatcher';
/**
 * 'gateway': answered by the gateway itself (D47's login links, checkout settings), with a router of its own; not
 * forwarded.
 */
type RouteOwner = Upstream | 'gateway';

export interface PublicRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Koa router path. */
  path: string;
  operationId: string;
  summary: string;
  /** What the operation does and the rules a caller meets, for the document (every operation has one). */
  description: string;
  tag:
    | 'Orders'
    | 'Refunds'
    | 'Reports'
    | 'Balance'
    | 'Checkout sessions'
    | 'Checkout settings'
    | 'Test helpers'
    | 'Events'
    | 'Webhook endpoints'
    | 'Dashboard';
  upstream: RouteOwner;
  upstreamPath: (params: Record<string, string>) => string;
  idParam?: { name: string; prefix: IdPrefix; code: ErrorCode; description: string };
  /**
   * The request body's schema, for the OpenAPI document: the owning service validates it (one place, with its codes).
   */
  body?: { schema: z.ZodType; required: boolean };
  /** The query's schema, for the document; validated by the owning service. */
  query?: { schema: z.ZodObject };
  /**
   * `contentType` absent: JSON. A CSV (D52's report file) is streamed from its owner to the merchant as it comes,
   * never held whole in the gateway.
   */
  success: { status: number; schema: z.ZodType; contentType?: 'text/csv; charset=utf-8' };
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
  /**
   * A merchant's write that records events (and so deliveries): refused with 429 QUOTA_EXCEEDED once its organization
   * and mode has used up a daily budget (domain/budgets.ts). The test helpers that stand in for the customer, the
   * processor and the clock (pay, expire, settle) are not: in live mode nothing refuses those.
   */
  recordsEvents?: true;
}

/** What a route declares: the route less what its group (tag, owner) and its `route` line already say. */
export interface RouteDeclaration extends Omit<
  PublicRoute,
  'method' | 'path' | 'tag' | 'upstream' | 'upstreamPath' | 'idParam'
> {
  /**
   * `<method> <public path> -> <owner's path>` (the owner's path left out for the gateway's own routes); `:name` in
   * the owner's path stands for the public path's parameter of that name, URL-encoded.
   */
  route: `${PublicRoute['method']} /v0/${string}`;
}

type IdParam = NonNullable<PublicRoute['idParam']>;

/** Each id a public path takes, by its parameter's name: the gateway checks its shape before forwarding. */
const ID_PARAMS: Record<string, IdParam> = {
  orderId: {
    name: 'orderId',
    prefix: 'ord',
    code: 'INVALID_ORDER_ID',
    description: 'Order id, `ord_<mode>_<suffix>`.',
  },
  sessionId: {
    name: 'sessionId',
    prefix: 'cs',
    code: 'INVALID_SESSION_ID',
    description: 'Checkout session id, `cs_<mode>_<suffix>`.',
  },
  eventId: {
    name: 'eventId',
    prefix: 'evt',
    code: 'INVALID_EVENT_ID',
    description: 'Event id, `evt_<mode>_<suffix>`.',
  },
  refundId: {
    name: 'refundId',
    prefix: 're',
    code: 'INVALID_REFUND_ID',
    description: 'Refund id, `re_<mode>_<suffix>`.',
  },
  reportId: {
    name: 'reportId',
    prefix: 'rpt',
    code: 'INVALID_REPORT_ID',
    description: 'Report id, `rpt_<mode>_<suffix>`.',
  },
  balanceTransactionId: {
    name: 'balanceTransactionId',
    prefix: 'txn',
    code: 'INVALID_BALANCE_TRANSACTION_ID',
    description: 'Balance transaction id, `txn_<mode>_<suffix>`.',
  },
  endpointId: {
    name: 'endpointId',
    prefix: 'we',
    code: 'INVALID_WEBHOOK_ENDPOINT_ID',
    description: 'Webhook endpoint id, `we_<mode>_<suffix>`.',
  },
};

/** The operations that take the id an answer returns, by the kind of that id (OpenAPI links). */
export const LINKS = {
  order: ['getOrder', 'updateOrder', 'cancelOrder', 'createRefund', 'listRefunds', 'testHelperCreateRefund'],
  refund: ['getRefund', 'testHelperSettleRefund'],
  session: ['getCheckoutSession', 'updateCheckoutSession', 'testHelperPay', 'testHelperExpire'],
  report: ['getReport', 'getReportFile'],
  endpoint: ['getWebhookEndpoint', 'updateWebhookEndpoint', 'deleteWebhookEndpoint', 'rotateWebhookEndpointSecret'],
} as const;

export const linksTo = (operationIds: readonly string[], parameter: string, pointer: string) =>
  Object.fromEntries(operationIds.map((operationId) => [operationId, { parameter, pointer }]));

const PARAM = /:(\w+)/g;
const ROUTE_LINE = /^(GET|POST|PATCH|DELETE) (\/v0\/\S+)(?: -> (\/internal\/\S+))?$/;

/** The routes of one tag and owner, each with the id check and the owner's path its `route` line names. */
export function declareRoutes(
  group: { tag: PublicRoute['tag']; upstream: RouteOwner },
  routes: readonly RouteDeclaration[],
): PublicRoute[] {
  return routes.map(({ route: line, ...route }) => {
    const [, method, path, to = ''] = ROUTE_LINE.exec(line) ?? [];
    const params = [...(path ?? '').matchAll(PARAM)].map((match) => match[1] ?? '');
    const idParam = params[0] === undefined ? undefined : ID_PARAMS[params[0]];
    if (method === undefined || path === undefined || params.length > 1 || (params.length === 1 && !idParam))
      throw new Error(
        `${route.operationId}: "${line}" is not "<method> /v0/<path> -> /internal/<path>" with one id at most`,
      );
    return {
      method: method as PublicRoute['method'],
      path,
      ...route,
      ...group,
      upstreamPath: (values) => to.replace(PARAM, (_, name: string) => encodeURIComponent(values[name] ?? '')),
      ...(idParam && { idParam }),
    };
  });
}

/** What an order's input can be refused for, wherever an order is created (alone or with its checkout session). */
export const ORDER_INPUT_ERRORS: readonly ErrorCode[] = [
  'DUPLICATE_EXTERNAL_ID',
  'INVALID_LOCATION_ID',
  'LOCATION_NOT_FOUND',
  'INVALID_PAYMENT_DESTINATION',
  'PAYMENT_DESTINATION_NOT_FOUND',
  'PAYMENT_DESTINATION_NOT_ACTIVE',
  'INVALID_REQUEST',
  'PAYLOAD_TOO_LARGE',
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
