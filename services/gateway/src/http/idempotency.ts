import type { Middleware } from 'koa';
import { DomainError, isDomainError } from '@checkout/errors';
import { IDEMPOTENT_REPLAYED_HEADER } from '@checkout/contracts';
import { domainErrorBody, requireScope } from '@checkout/http';
import { idempotencyKeyProblem, idempotencyRecordId, requestFingerprint } from '../domain/idempotency';
import type { IdempotencyStore } from '../store/idempotency.store';

declare module 'koa' {
  interface DefaultState {
    /** Set while a request with an Idempotency-Key runs; forwarded to the owner (INTERNAL_API_HEADERS). */
    idempotencyRecord?: string;
  }
}

/**
 * D42 for every public POST; runs after authentication and body parsing. A request without the header goes
 * straight on: no database round trip is added to it.
 */
export function idempotency(
  store: Pick<IdempotencyStore, 'begin' | 'complete' | 'release'>,
  clock: () => Date,
  onKeepFailed: (err: unknown) => void,
): Middleware {
  return async (ctx, next) => {
    const header = ctx.headers['idempotency-key'];
    if (header === undefined) {
      await next();
      return;
    }
    const key = Array.isArray(header) ? header.join(',') : header;
    const problem = idempotencyKeyProblem(key);
    if (problem)
      throw new DomainError('INVALID_REQUEST', problem, { details: [{ path: 'Idempotency-Key', message: problem }] });

    const scope = requireScope(ctx.state);
    const apiKeyId = String(ctx.state.apiKeyId);
    const id = idempotencyRecordId(apiKeyId, key);
    const begun = await store.begin(scope, {
      id,
      apiKeyId,
      fingerprint: requestFingerprint(ctx.method, ctx.path, ctx.request.jsonBody),
      now: clock(),
    });
    if (begun.kind === 'reused') {
      throw new DomainError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      );
    }
    if (begun.kind === 'in_use') {
      throw new DomainError(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
        { retryAfterSeconds: 1 },
      );
    }
    if (begun.kind === 'replay') {
      ctx.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
      ctx.status = begun.response.status;
      ctx.type = 'application/json';
      ctx.body = begun.response.body;
      return;
    }

    const { token } = begun;
    ctx.state.idempotencyRecord = id;
    try {
      await next();
    } catch (err) {
      // A 4xx is an answer like any other and is kept; a 5xx or a crash frees the key for a retry.
      if (isDomainError(err) && err.status < 500) {
        await store
          .complete(
            scope,
            id,
            token,
            { status: err.status, body: JSON.stringify(domainErrorBody(err, String(ctx.state.requestId ?? ''))) },
            clock(),
          )
          .catch(onKeepFailed);
      } else {
        await store.release(id, token).catch(() => {
          // It expires on its own once its lock lapses (lockMs).
        });
      }
      throw err;
    }
    if (ctx.status < 500) {
      // The work is done and the client gets its answer even if keeping it fails: turning a 201 into a 503 would
      // invite a retry that creates again. The key stays "in use" until its lock lapses.
      await store
        .complete(scope, id, token, { status: ctx.status, body: JSON.stringify(ctx.body ?? null) }, clock())
        .catch(onKeepFailed);
    } else {
      await store.release(id, token);
    }
  };
}
