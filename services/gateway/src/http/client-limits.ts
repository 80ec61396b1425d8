import type { Context, Middleware } from 'koa';
import type { BlockList } from 'node:net';
import { DomainError } from '@checkout/errors';
import { clientAddress } from '../domain/client-address';
import type { RateLimiter } from '../domain/rate-limit';

declare module 'koa' {
  interface DefaultState {
    /** The client this request comes from (see clientAddress), for limits counted before authentication. */
    clientAddress?: string;
  }
}

function requestClient(ctx: Context, trusted: BlockList): string {
  ctx.state.clientAddress ??= clientAddress(
    ctx.req.socket.remoteAddress,
    ctx.get('x-forwarded-for') || undefined,
    trusted,
  );
  return ctx.state.clientAddress;
}

/**
 * Limits counted per client address before anything else happens: every request on the public
 * listener (unknown keys and key guesses included, which would otherwise each cost a database read), and the
 * hosted checkout page on a tighter budget (each GET reads a session). In this replica's memory, as the per-key
 * limit (D43): each replica admits its share.
 */
export function perClientLimits(options: {
  all: RateLimiter;
  checkout: RateLimiter;
  trusted: BlockList;
  refused: () => void;
}): Middleware {
  return async (ctx, next) => {
    const client = requestClient(ctx, options.trusted);
    const now = Date.now();
    let retryAfter = options.all.admit(client, now);
    if (retryAfter === 0 && ctx.path.toLowerCase().startsWith('/checkout/'))
      retryAfter = options.checkout.admit(client, now);
    if (retryAfter > 0) {
      options.refused();
      throw new DomainError('RATE_LIMITED', 'Too many requests from this address; retry after the indicated delay.', {
        retryAfterSeconds: retryAfter,
      });
    }
    await next();
  };
}
