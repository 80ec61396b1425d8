import type { ErrorCode, QuotaDetail } from '@checkout/errors';
import type { ErrorDetail } from '@checkout/contracts';

/** A code the SDK knows (autocompleted), or a newer one the server added since. */
export type ApiErrorCode = ErrorCode | (string & {});

export class CheckoutError extends Error {
  override name = 'CheckoutError';
}

/** The API answered with an error body (D6). */
export class CheckoutApiError extends CheckoutError {
  override name = 'CheckoutApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly details: ErrorDetail[];
  /** The X-Request-Id of the failed request: quote it when asking for help. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (429, 503, 409 IDEMPOTENCY_KEY_IN_USE). */
  readonly retryAfterSeconds: number | undefined;
  /** 429 QUOTA_EXCEEDED: which daily budget of the organization and mode was used up, its limit, when it resets. */
  readonly quota: QuotaDetail | undefined;

  constructor(input: {
    status: number;
    code: ApiErrorCode;
    message: string;
    details?: ErrorDetail[];
    requestId?: string | undefined;
    retryAfterSeconds?: number | undefined;
    quota?: QuotaDetail | undefined;
  }) {
    super(input.message);
    this.status = input.status;
    this.code = input.code;
    this.details = input.details ?? [];
    this.requestId = input.requestId;
    this.retryAfterSeconds = input.retryAfterSeconds;
    this.quota = input.quota;
  }
}

/** No answer: the connection failed or timed out, after the retries. */
export class CheckoutConnectionError extends CheckoutError {
  override name = 'CheckoutConnectionError';
}

/** A webhook delivery whose signature does not check out (D35). */
export class WebhookVerificationError extends CheckoutError {
  override name = 'WebhookVerificationError';
}

export function isCheckoutApiError(value: unknown, code?: ApiErrorCode): value is CheckoutApiError {
  return value instanceof CheckoutApiError && (code === undefined || value.code === code);
}
