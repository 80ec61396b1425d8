import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '@checkout/logger';
import { DependencyUnavailableError, DomainError, type ErrorBody, type ErrorCode } from '@checkout/errors';
import { INTERNAL_API_HEADERS } from '@checkout/contracts';
import { isDeadlineExceeded, isInfrastructureUnavailable } from './unavailable';

/**
 * The one place where errors become HTTP responses. Domain errors map through ERROR_STATUS;
 * an outage of a dependency is a 503 the client may retry; anything else is a 500 whose details stay in
 * the log, joined to the response only by an error id.
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const requestId = String(ctx.state.requestId ?? '');
      let status: number;
      let body: ErrorBody;
      if (err instanceof DomainError) {
        status = err.status;
        body = domainErrorBody(err, requestId);
        if (err.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(err.retryAfterSeconds));
        if (status >= 500) logger.warn({ code: err.code, err }, 'request failed');
      } else if (err instanceof DependencyUnavailableError || isInfrastructureUnavailable(err)) {
        status = 503;
        body = envelope('SERVICE_UNAVAILABLE', 'A dependency is temporarily unavailable; retry shortly.', requestId);
        ctx.set('Retry-After', '1');
        if (isDeadlineExceeded(err)) ctx.set(INTERNAL_API_HEADERS.deadlineExceeded, 'true');
        logger.warn({ err: summarize(err) }, 'dependency unavailable');
      } else if (isKoaHttpError(err) && err.status < 500) {
        // Errors Koa raises itself (e.g. a malformed URL) before our code runs.
        status = err.status;
        body = envelope(
          err.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST',
          err.expose ? err.message : 'Invalid request',
          requestId,
        );
      } else {
        const errorId = `err_${randomBytes(8).toString('hex')}`;
        logger.error({ err, errorId }, 'unhandled error');
        status = 500;
        body = envelope('INTERNAL_ERROR', `An internal error occurred (${errorId}).`, requestId);
      }
      ctx.status = status;
      ctx.body = body;
    }
  };
}

/** The D6 body of a domain error; also what an idempotent replay (D42) stores for a 4xx. */
export function domainErrorBody(err: DomainError, requestId: string): ErrorBody {
  const body = envelope(err.code, err.message, requestId, err.details);
  return err.quota ? { ...body, quota: err.quota } : body;
}

function envelope(code: ErrorCode, message: string, requestId: string, details?: ErrorBody['details']): ErrorBody {
  return details && details.length > 0 ? { code, message, details, requestId } : { code, message, requestId };
}

function isKoaHttpError(err: unknown): err is { status: number; expose: boolean; message: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { status?: unknown }).status === 'number' &&
    'expose' in err
  );
}

function summarize(err: unknown): { name: string; message: string } {
  return err instanceof Error ? { name: err.name, message: err.message } : { name: 'unknown', message: String(err) };
}
