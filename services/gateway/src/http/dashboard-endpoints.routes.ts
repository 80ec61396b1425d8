import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { DomainError, isDomainError } from '@checkout/errors';
import { isIdOf, type CreateWebhookEndpointRequest, type Scope } from '@checkout/contracts';
import { sinceFromForm } from '../domain/dashboard-views';
import type { EndpointPagesDispatcher } from '../domain/dashboard-reads';
import { confirmPage, type PageContext } from './dashboard/render';
import { endpointPage, endpointsPage, newEndpointPage, secretPage } from './dashboard/endpoints.render';

/** What the dashboard's routes share with these pages (dashboard.routes.ts). */
export interface DashboardKit {
  dispatcher: EndpointPagesDispatcher;
  clock: () => Date;
  scopeOf(ctx: Context): Scope;
  requestId(ctx: Context): string;
  pageCtx(ctx: Context, section: PageContext['section']): PageContext;
  html(ctx: Context, body: string): void;
  verifiedForm(ctx: Context): Promise<URLSearchParams>;
  one(value: string | string[] | undefined): string | undefined;
}

function endpointIdParam(value: string | undefined): string {
  // A malformed id is "not found" on a page, as for orders and events (docs/decisions.md, D47).
  if (!isIdOf('we', value)) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', 'No such id.');
  return value;
}

const UTC_MINUTE = (date: Date) => date.toISOString().slice(0, 19);

/**
 * D50 on the dashboard: the list of webhook endpoints, the form that adds one (its secret shown once), one endpoint
 * with the attempts of its deliveries, and disable, enable, rotate and recover, each confirmed on a page of its own
 * and posted with the session's CSRF token, like redeliver.
 */
export function mountEndpointPages(pages: Router, kit: DashboardKit, session: Middleware): void {
  const dispatcher = kit.dispatcher;
  const base = '/webhook_endpoints';

  pages.get(base, session, async (ctx) => {
    const { endpoints } = await dispatcher.listEndpoints(kit.scopeOf(ctx), kit.requestId(ctx));
    const m = kit.one(ctx.query.m);
    kit.html(ctx, endpointsPage(kit.pageCtx(ctx, 'endpoints'), endpoints, m === 'deleted' ? 'Deleted.' : undefined));
  });

  pages.get(`${base}/new`, session, (ctx) => kit.html(ctx, newEndpointPage(kit.pageCtx(ctx, 'endpoints'))));

  pages.post(base, session, async (ctx) => {
    const form = await kit.verifiedForm(ctx);
    const events = form.getAll('events');
    const values = { url: form.get('url') ?? '', description: form.get('description') ?? '', events };
    const input = {
      url: values.url,
      enabledEvents: events,
      ...(values.description !== '' && { description: values.description }),
    } as CreateWebhookEndpointRequest;
    try {
      const { endpoint } = await dispatcher.createEndpoint(kit.scopeOf(ctx), kit.requestId(ctx), input);
      kit.html(ctx, secretPage(kit.pageCtx(ctx, 'endpoints'), endpoint, false));
    } catch (err) {
      // A refused form (a bad URL, no event type, the 16 taken) is shown again with what was wrong.
      if (
        !isDomainError(err) ||
        !['WEBHOOK_ENDPOINT_CREATE_FAILED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'].includes(err.code)
      )
        throw err;
      kit.html(ctx, newEndpointPage(kit.pageCtx(ctx, 'endpoints'), values, `Not added: ${err.message}`));
    }
  });

  pages.get(`${base}/:endpointId`, session, async (ctx) => {
    const id = endpointIdParam(ctx.params.endpointId);
    const [{ endpoint }, deliveries] = await Promise.all([
      dispatcher.getEndpoint(kit.scopeOf(ctx), kit.requestId(ctx), id),
      dispatcher.endpointDeliveries(kit.scopeOf(ctx), kit.requestId(ctx), id, kit.one(ctx.query.page)),
    ]);
    const m = kit.one(ctx.query.m);
    const recovering = kit.one(ctx.query.recovering);
    const message =
      recovering !== undefined && /^\d+$/.test(recovering)
        ? `Recovery started: ${recovering} deliveries will be sent to this endpoint.`
        : m === 'disabled'
          ? 'Disabled: nothing is sent to it until you enable it again.'
          : m === 'enabled'
            ? 'Enabled. Recover what it missed below.'
            : undefined;
    // The recovery form starts at the time it was disabled (or a day back), as far as 14 days allow.
    const since = endpoint.disabledReason?.at ?? new Date(kit.clock().getTime() - 24 * 3_600_000).toISOString();
    kit.html(
      ctx,
      endpointPage(kit.pageCtx(ctx, 'endpoints'), endpoint, deliveries, UTC_MINUTE(new Date(since)), message),
    );
  });

  const confirm = (
    action: 'disable' | 'enable' | 'rotate_secret',
    title: string,
    explanation: (id: string) => string,
    label: string,
  ) =>
    pages.get(`${base}/:endpointId/${action}`, session, async (ctx) => {
      const id = endpointIdParam(ctx.params.endpointId);
      // Read first, so another organization's id is "not found" here already, not only after confirming.
      await dispatcher.getEndpoint(kit.scopeOf(ctx), kit.requestId(ctx), id);
      kit.html(
        ctx,
        confirmPage(
          kit.pageCtx(ctx, 'endpoints'),
          title,
          explanation(id),
          `/dashboard${base}/${id}/${action}`,
          {},
          `/dashboard${base}/${id}`,
          label,
        ),
      );
    });
  confirm(
    'disable',
    'Disable this endpoint?',
    (id) => `Nothing will be sent to ${id} until it is enabled again; its deliveries still waiting end unsent.`,
    'Yes, disable it',
  );
  confirm(
    'enable',
    'Enable this endpoint?',
    (id) => `${id} will receive the events of its types from now on; then recover what it missed.`,
    'Yes, enable it',
  );
  confirm(
    'rotate_secret',
    'Rotate the signing secret?',
    (id) =>
      `${id} gets a new signing secret, shown once on the next page; the current one keeps signing beside it for 24 hours (D50).`,
    'Yes, rotate it',
  );

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    pages.post(`${base}/:endpointId/${action}`, session, async (ctx) => {
      await kit.verifiedForm(ctx);
      const id = endpointIdParam(ctx.params.endpointId);
      await dispatcher.updateEndpoint(kit.scopeOf(ctx), kit.requestId(ctx), id, { disabled });
      ctx.redirect(`/dashboard${base}/${id}?m=${disabled ? 'disabled' : 'enabled'}`);
      ctx.status = 303;
    });
  }

  pages.post(`${base}/:endpointId/rotate_secret`, session, async (ctx) => {
    await kit.verifiedForm(ctx);
    const id = endpointIdParam(ctx.params.endpointId);
    const { endpoint } = await dispatcher.rotateEndpointSecret(kit.scopeOf(ctx), kit.requestId(ctx), id);
    kit.html(ctx, secretPage(kit.pageCtx(ctx, 'endpoints'), endpoint, true));
  });

  pages.get(`${base}/:endpointId/recover`, session, async (ctx) => {
    const id = endpointIdParam(ctx.params.endpointId);
    await dispatcher.getEndpoint(kit.scopeOf(ctx), kit.requestId(ctx), id);
    const since = sinceFromForm(kit.one(ctx.query.since));
    if (since === undefined)
      throw new DomainError('INVALID_REQUEST', 'Give the time to recover from, e.g. 2026-11-24T10:00.');
    kit.html(
      ctx,
      confirmPage(
        kit.pageCtx(ctx, 'endpoints'),
        'Recover what this endpoint missed?',
        `Every delivery to ${id} that failed since ${since}, and every event since then of its types that it did not get while disabled, will be sent to it, once each (D50).`,
        `/dashboard${base}/${id}/recover`,
        { since },
        `/dashboard${base}/${id}`,
        'Yes, send them',
      ),
    );
  });

  pages.post(`${base}/:endpointId/recover`, session, async (ctx) => {
    const form = await kit.verifiedForm(ctx);
    const id = endpointIdParam(ctx.params.endpointId);
    const since = sinceFromForm(form.get('since') ?? undefined);
    if (since === undefined)
      throw new DomainError('INVALID_REQUEST', 'Give the time to recover from, e.g. 2026-11-24T10:00.');
    const { recovering } = await dispatcher.recover(kit.scopeOf(ctx), kit.requestId(ctx), since, id);
    ctx.redirect(`/dashboard${base}/${id}?recovering=${recovering}`);
    ctx.status = 303;
  });
}
