import Router from '@koa/router';
import { DomainError } from '@checkout/errors';
import { parseOrThrow, requireScope } from '@checkout/http';
import { INTERNAL_API_HEADERS, PayRequest, type Scope } from '@checkout/contracts';
import type { SessionCommands } from '../domain/sessions.use-cases';
import { sessionIdParam } from './session-id';

/** D29: test-mode helpers; with a live key they do not exist (the gateway answers 404 too). */
function testScope(state: { scope?: Scope }): Scope {
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
    const requestKey = ctx.get(INTERNAL_API_HEADERS.idempotencyRecord) || undefined;
    const { view } = await commands.payWithTestHelper(scope, id, body, requestKey, idSecret);
    ctx.body = { session: commands.present(view) };
  });

  router.post('/:sessionId/expire', async (ctx) => {
    const scope = testScope(ctx.state);
    const id = sessionIdParam(ctx.params.sessionId);
    ctx.body = { session: commands.present(await commands.expireNow(scope, id)) };
  });

  return router;
}
