import { sessionView } from '../../domain/dashboard-reads';
import { idParam, one, pageCtx, requestId, respond, scopeOf, type MountSection } from './kit';
import { sessionPage, sessionsPage } from './sessions.render';

/** Checkout sessions, newest first; a session with its status history (D47). */
export const mountSessionPages: MountSection = (pages, deps, session) => {
  pages.get('/sessions', session, async (ctx) => {
    const list = await deps.upstreams.sessions.listSessions(scopeOf(ctx), requestId(ctx), {
      page: one(ctx.query.page),
      limit: '25',
    });
    respond(ctx, sessionsPage(pageCtx(ctx, 'sessions'), list));
  });

  pages.get('/sessions/:sessionId', session, async (ctx) => {
    const id = idParam('cs', ctx.params.sessionId);
    const { session: found, history } = await sessionView(deps.upstreams, scopeOf(ctx), requestId(ctx), id);
    respond(ctx, sessionPage(pageCtx(ctx, 'sessions'), found, history));
  });
};
