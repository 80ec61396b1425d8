import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { DomainError } from '@checkout/errors';

declare module 'koa' {
  interface Request {
    /** The parsed JSON object body, or undefined when the request carried no body. */
    jsonBody?: Record<string, unknown>;
  }
}

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Reads a JSON object body (D7): not JSON, an array or a bare value, or the wrong content type is
 * INVALID_REQUEST; over the limit is PAYLOAD_TOO_LARGE. A request with no body at all (e.g. POST cancel) is
 * fine and leaves jsonBody undefined.
 */
export function jsonBody(options: { limitBytes?: number } = {}): Middleware {
  const limit = options.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) return next();
    const declaredLength = ctx.request.length;
    const hasBody = ctx.req.headers['transfer-encoding'] !== undefined || (declaredLength !== undefined && declaredLength > 0);
    if (!hasBody) return next();
    if (declaredLength !== undefined && declaredLength > limit) {
      throw new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes.`);
    }
    if (!ctx.is('application/json')) {
      throw new DomainError('INVALID_REQUEST', 'Request body must be JSON sent with Content-Type: application/json.');
    }
    let raw: string;
    try {
      raw = await getRawBody(ctx.req, { limit, encoding: 'utf8', length: declaredLength });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') {
        throw new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes.`);
      }
      throw new DomainError('INVALID_REQUEST', 'Request body could not be read.');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new DomainError('INVALID_REQUEST', 'Request body is not valid JSON.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new DomainError('INVALID_REQUEST', 'Request body must be a JSON object.');
    }
    ctx.request.jsonBody = parsed as Record<string, unknown>;
    return next();
  };
}
