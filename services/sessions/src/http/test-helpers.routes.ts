import Router from '@koa/router';
import { DomainError } from '@checkout/errors';
import { INTERNAL_HEADERS, parseOrThrow, requireScope, type RequestScope } from '@checkout/http';
import { PayRequest, secretlyDerivedId } from '@checkout/contracts';
import type { SessionCommands } from '../domain/sessions.use-cases';
import { sessionIdParam } from './session-id';

/** D29: test-mode helpers; with a live key they do not exist (the gateway answers 404 too). */
function testScope(state: { scope?: RequestScope }): RequestScope {
  const scope = requireScope(state);
  if (scope.mode !== 'test') throw new DomainError('NOT_FOUND', 'No such route.');
  return scope;
}

export function testHelpersRoutes(commands: SessionCommands, idSecret: string): Router {
  const router = new Router({ prefix: '/internal/test-helpers/sessions' });

  router.post('/:sessionId/pay', async (ctx) => {
    const scope = testScope(ctx.state);
    const id = sessionIdParam(ctx.params.sessionId);
    const body = parseOrThrow(PayRequest, ctx.request.jsonBody ?? {}, 'INVALID_REQUEST');
    // D42: with an Idempotency-Key the payment's id comes from it, so a retry after an unknown outcome is the
    // same payment, which orders applies at most once, and not a second one.
    const requestKey = ctx.get(INTERNAL_HEADERS.idempotencyRecord) || undefined;
    const { view } = await commands.pay(scope, id, {
      source: 'simulator',
      ...(requestKey !== undefined && {
        paymentId: secretlyDerivedId('pay', scope.mode, idSecret, `payment\n${scope.organizationId}\n${requestKey}`),
      }),
      method: body.method,
      outcome: body.outcome,
      ...(body.amount !== undefined && { amount: body.amount }),
    });
    ctx.body = { session: commands.present(view) };
  });

  router.post('/:sessionId/expire', async (ctx) => {
    const scope = testScope(ctx.state);
    const id = sessionIdParam(ctx.params.sessionId);
    ctx.body = { session: commands.present(await commands.expireNow(scope, id)) };
  });

  return router;
}
