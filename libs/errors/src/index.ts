// Domain errors are values with a code from the spec (D5–D16, D29, D34, D42, D48, D52); the HTTP status for each
// code is decided here and nowhere else. Route files never set a 4xx status themselves.

export const ERROR_STATUS = {
  // generic (D5–D7)
  UNAUTHORIZED: 401,
  INVALID_API_KEY: 401,
  ORGANIZATION_NOT_FOUND: 400,
  INVALID_REQUEST: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_CONTENT_ENCODING: 415,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RATE_LIMITED: 429,
  /**
   * A merchant's write refused because its organization and mode used up a daily budget of what every merchant shares
   * (events, deliveries, stored bytes); the body's `quota` says which, its limit and when it resets.
   */
  QUOTA_EXCEEDED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  FORBIDDEN: 403,
  // orders
  INVALID_ORDER_ID: 400,
  ORDER_NOT_FOUND: 404,
  ORDER_CREATE_FAILED: 400,
  ORDER_UPDATE_FAILED: 400,
  ORDER_NOT_EDITABLE: 400,
  ORDER_CANCEL_FAILED: 400,
  /**
   * Internal: orders refuses a payment (the order is not open, its checkout expired, or nothing is due). Only
   * sessions calls orders' payments, and it answers its callers with its own SESSION_NOT_PAYABLE (D29).
   */
  ORDER_NOT_PAYABLE: 400,
  ORDERS_FETCH_FAILED: 400,
  ORDER_FETCH_FAILED: 400,
  DUPLICATE_EXTERNAL_ID: 409,
  INVALID_LOCATION_ID: 400,
  LOCATION_NOT_FOUND: 400,
  INVALID_PAYMENT_DESTINATION: 400,
  PAYMENT_DESTINATION_NOT_FOUND: 400,
  PAYMENT_DESTINATION_NOT_ACTIVE: 400,
  // refunds (D48; docs/decisions.md): a malformed refund id in a path, a well-formed one nowhere in this organization
  // and mode, and a refund refused (nothing received, more than refundable, a malformed body, a settled one settled)
  INVALID_REFUND_ID: 400,
  REFUND_NOT_FOUND: 404,
  REFUND_FAILED: 400,
  // reports (D52; docs/books.md): a malformed report id, one unknown, foreign or past its 30 days, a report refused
  // (a malformed body, a window over 366 days or empty), and a file asked for before the report succeeded
  INVALID_REPORT_ID: 400,
  REPORT_NOT_FOUND: 404,
  REPORT_CREATE_FAILED: 400,
  REPORT_NOT_READY: 409,
  // balance transactions (D52): a malformed line id in a path, a well-formed one nowhere in this organization and mode
  INVALID_BALANCE_TRANSACTION_ID: 400,
  BALANCE_TRANSACTION_NOT_FOUND: 404,
  // checkout sessions
  INVALID_SESSION_ID: 400,
  SESSION_NOT_FOUND: 404,
  SESSION_CREATION_FAILED: 400,
  SESSION_UPDATE_FAILED: 400,
  SESSION_NOT_PAYABLE: 400,
  CREATE_FAILED: 400,
  // idempotency (D42)
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  // events (D34)
  INVALID_EVENT_ID: 400,
  EVENT_NOT_FOUND: 404,
  RECOVERY_IN_PROGRESS: 409,
  // webhook endpoints (D50): a malformed or unknown endpoint id as D4 says for orders; bodies refused as D7 says;
  // the 17th endpoint of an organization and mode; a redelivery to an endpoint that is disabled
  INVALID_WEBHOOK_ENDPOINT_ID: 400,
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  WEBHOOK_ENDPOINT_CREATE_FAILED: 400,
  WEBHOOK_ENDPOINT_UPDATE_FAILED: 400,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 400,
  WEBHOOK_ENDPOINT_DISABLED: 400,
  // dashboard (D47): a login link used, expired or unknown (one code: nothing says which); a page without a
  // live dashboard session; a dashboard form without its session's CSRF token
  LOGIN_LINK_INVALID: 410,
  DASHBOARD_LOGIN_REQUIRED: 401,
  CSRF_TOKEN_INVALID: 403,
  // operators (D38)
  ADMIN_REQUEST_FAILED: 400,
  ADMIN_NOT_FOUND: 404,
  ADMIN_CONFLICT: 409,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** Which daily budget a QUOTA_EXCEEDED refusal met, its limit, and when it resets (the next UTC midnight). */
export interface QuotaDetail {
  budget: 'events' | 'deliveries' | 'bytes';
  limit: number;
  resetsAt: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds the client should wait before retrying (429 and 503). */
  readonly retryAfterSeconds: number | undefined;
  /** QUOTA_EXCEEDED: the budget met. */
  readonly quota: QuotaDetail | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; retryAfterSeconds?: number; quota?: QuotaDetail; cause?: unknown } = {},
  ) {
    // A 4xx is an answer to the caller, not a fault: nothing logs its stack (the error handler logs 5xx only), and
    // capturing one through Koa's middleware cost a refused request 27 µs of the gateway's CPU (its profile under
    // the abuse bench). A 5xx keeps its stack for the log.
    const stackLimit = Error.stackTraceLimit;
    if (ERROR_STATUS[code] < 500) Error.stackTraceLimit = 0;
    try {
      super(message, options.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = stackLimit;
    }
    this.name = 'DomainError';
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.quota = options.quota;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/**
 * A dependency (database, broker, another service) could not be reached. Distinct from DomainError so that
 * store and client code can say "outage" without knowing about HTTP; the error middleware answers 503.
 */
export class DependencyUnavailableError extends Error {
  readonly dependency: string;
  constructor(dependency: string, cause?: unknown) {
    super(`${dependency} is unavailable`, cause === undefined ? undefined : { cause });
    this.name = 'DependencyUnavailableError';
    this.dependency = dependency;
  }
}

/** The JSON error envelope of D6. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  quota?: QuotaDetail;
  requestId: string;
}
