import type { Middleware } from 'koa';
import { withRequestId } from '@checkout/logger';
import { pooledRandom } from '@checkout/telemetry';

const INCOMING_ID = /^[A-Za-z0-9_.:-]{8,128}$/;

export function newRequestId(): string {
  return `req_${pooledRandom(12, 'base64url')}`;
}

/**
 * Every response carries X-Request-Id (D6). An id that arrives well-formed (set by the gateway on internal
 * calls, or by a caller tracing its own requests) is kept so one request is traceable across services.
 */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const id = INCOMING_ID.test(incoming) ? incoming : newRequestId();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await withRequestId(id, next);
  };
}
