import type { Middleware } from 'koa';
import { isDomainError } from '@checkout/errors';
import { IDEMPOTENT_REPLAYED_HEADER } from '@checkout/contracts';
import { domainErrorBody, requireScope } from '@checkout/http';
import type { IdempotentRequests } from '../domain/idempotent-requests';
import type { KeylessWrites } from '../domain/keyless-writes';

declare module 'koa' {
  interface DefaultState {
    /** Set while a request with an Idempotency-Key runs; forwarded to the owner (INTERNAL_API_HEADERS). */
    idempotencyRecord?: string;
    /** When the Idempotency-Key's life began (INTERNAL_API_HEADERS.idempotencySince); unset without a key. */
    idempotencySince?: Date;
  }
}

/**
 * D42 for every public POST; runs after authentication and body parsing. A request without the header goes
 * straight on: no database round trip is added to it.
 */
export function idempotency(requests: IdempotentRequests, onKeepFailed: (err: unknown) => void): Middleware {
  return async (ctx, next) => {
    const header = ctx.headers['idempotency-key'];
    if (header === undefined) {
      await next();
      return;
    }
    const claim = await requests.claim(
      requireScope(ctx.state),
      String(ctx.state.apiKeyId),
      Array.isArray(header) ? header.join(',') : header,
      { method: ctx.method, path: ctx.path, body: ctx.request.jsonBody },
    );
    if (claim.kind === 'replay') {
      ctx.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
      ctx.status = claim.response.status;
      ctx.type = 'application/json';
      ctx.body = claim.response.body;
      return;
    }

    const { held } = claim;
    ctx.state.idempotencyRecord = held.id;
    ctx.state.idempotencySince = held.since;
    try {
      await next();
    } catch (err) {
      // A 4xx is an answer like any other and is kept; a 5xx or a crash frees the key for a retry.
      if (isDomainError(err) && err.status < 500) {
        await requests
          .keep(held, {
            status: err.status,
            body: JSON.stringify(domainErrorBody(err, String(ctx.state.requestId ?? ''))),
          })
          .catch(onKeepFailed);
      } else {
        await requests.release(held).catch(() => {
          // It expires on its own once its lock lapses (lockMs).
        });
      }
      throw err;
    }
    if (ctx.status < 500) {
      // The work is done and the client gets its answer even if keeping it fails: turning a 201 into a 503 would
      // invite a retry that creates again. The key stays "in use" until its lock lapses.
      await requests.keep(held, { status: ctx.status, body: JSON.stringify(ctx.body ?? null) }).catch(onKeepFailed);
    } else {
      await requests.release(held);
    }
  };
}

/**
 * A write unsafe to repeat (a refund) sent without an Idempotency-Key: an identical retry of a try left unanswered
 * (a 5xx, an upstream timeout) is the same write (domain/keyless-writes.ts). Runs after idempotency(); a request
 * with a key is that middleware's. Costs one read per keyless write, and a write only after a 5xx or a retry.
 */
export function keylessRetries(writes: KeylessWrites, onFailed: (err: unknown) => void): Middleware {
  return async (ctx, next) => {
    if (ctx.headers['idempotency-key'] !== undefined) {
      await next();
      return;
    }
    const write = await writes.begin(requireScope(ctx.state), String(ctx.state.apiKeyId), {
      method: ctx.method,
      path: ctx.path,
      body: ctx.request.jsonBody,
    });
    ctx.state.idempotencyRecord = write.record;
    try {
      await next();
    } catch (err) {
      const answered = isDomainError(err) && err.status < 500;
      await (answered ? writes.answered(write) : writes.unanswered(write)).catch(onFailed);
      throw err;
    }
    await (ctx.status < 500 ? writes.answered(write) : writes.unanswered(write)).catch(onFailed);
  };
}
