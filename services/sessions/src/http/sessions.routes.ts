import Router from '@koa/router';
import { parseOrThrow, requireScope } from '@checkout/http';
import {
  CreateSessionRequest,
  INTERNAL_API_HEADERS,
  ListSessionsQuery,
  ORDER_FIELD_CODES,
  type SessionListResponse,
  OrderSnapshot,
  UpdateSessionRequest,
} from '@checkout/contracts';
import type { SessionCommands } from '../domain/sessions.use-cases';
import { createSession, type CreateSessionDeps } from '../domain/create-session.flow';
import { parseCheckoutSettings } from '../domain/checkout-settings';
import { sessionIdParam } from './session-id';

/** Internal checkout sessions API; the gateway authenticated the merchant and passes its scope in headers. */
export function sessionsRoutes(commands: SessionCommands, flowDeps: CreateSessionDeps): Router {
  const router = new Router({ prefix: '/internal/sessions' });

  router.post('/', async (ctx) => {
    const scope = requireScope(ctx.state);
    const settings = parseCheckoutSettings(ctx.get(INTERNAL_API_HEADERS.checkoutSettings) || undefined);
    const input = parseOrThrow(CreateSessionRequest, ctx.request.jsonBody ?? {}, 'SESSION_CREATION_FAILED', {
      // D53: a locale the page does not speak is a malformed request, not a session that failed.
      codeForField: { ...ORDER_FIELD_CODES, locale: 'INVALID_REQUEST' },
    });
    const created = await createSession(
      flowDeps,
      scope,
      input,
      settings,
      ctx.get(INTERNAL_API_HEADERS.idempotencyRecord) || undefined,
    );
    ctx.status = 201;
    ctx.body = { session: commands.present(created) };
  });

  // D47: the dashboard's sessions list (through the gateway, which passes the dashboard session's scope).
  router.get('/', async (ctx) => {
    const scope = requireScope(ctx.state);
    const { page, limit } = parseOrThrow(ListSessionsQuery, ctx.query, 'INVALID_REQUEST');
    const { views, total } = await commands.list(scope, page, limit);
    const body: SessionListResponse = {
      sessions: views.map((view) => commands.present(view)),
      pagination: { page, limit, total, hasMore: page * limit < total },
    };
    ctx.body = body;
  });

  router.get('/:sessionId', async (ctx) => {
    const view = await commands.get(requireScope(ctx.state), sessionIdParam(ctx.params.sessionId));
    ctx.body = { session: commands.present(view) };
  });

  router.patch('/:sessionId', async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = sessionIdParam(ctx.params.sessionId);
    const patch = parseOrThrow(UpdateSessionRequest, ctx.request.jsonBody ?? {}, 'SESSION_UPDATE_FAILED');
    ctx.body = { session: commands.present(await commands.update(scope, id, patch)) };
  });

  // D46: the gateway, after orders answered a merchant's cancel or edit of this session's order, and before it
  // answers the merchant.
  router.put('/:sessionId/order', async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = sessionIdParam(ctx.params.sessionId);
    const snapshot = parseOrThrow(OrderSnapshot, ctx.request.jsonBody ?? {}, 'INVALID_REQUEST');
    await commands.takeOrderSnapshot(scope, id, snapshot);
    ctx.status = 204;
  });

  return router;
}
