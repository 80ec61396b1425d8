import type Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import type { Middleware } from 'koa';
import { DomainError, isDomainError } from '@checkout/errors';
import type { CreateWebhookEndpointRequest } from '@checkout/contracts';
import type { EndpointPagesDispatcher } from '../../domain/dashboard-reads';
import { sinceFromForm } from '../../domain/dashboard-views';
import { confirmPage } from './layout';
import { endpointPage, endpointsPage, newEndpointPage, secretPage } from './endpoints.render';
import { idParam, one, pageCtx, requestId, respond, scopeOf, seeOther, verifiedForm, type MountSection } from './kit';
import { withinBudget } from './kit';

// D50 on the dashboard: the list of webhook endpoints, the form that adds one (its secret shown once), one endpoint
// with the attempts of its deliveries, and disable, enable, rotate and recover, each confirmed on a page of its own
// and posted with the session's CSRF token, like redeliver.

const BASE = '/webhook_endpoints';
const UTC_MINUTE = (date: Date) => date.toISOString().slice(0, 19);

function addEndpoint(dispatcher: EndpointPagesDispatcher): Middleware {
  return async (ctx) => {
    const form = await verifiedForm(ctx);
    const events = form.getAll('events');
    const values = { url: form.get('url') ?? '', description: form.get('description') ?? '', events };
    const input = {
      url: values.url,
      enabledEvents: events,
      ...(values.description !== '' && { description: values.description }),
    } as CreateWebhookEndpointRequest;
    try {
      const { endpoint } = await dispatcher.createEndpoint(scopeOf(ctx), requestId(ctx), input);
      respond(ctx, secretPage(pageCtx(ctx, 'endpoints'), endpoint, false));
    } catch (err) {
      // A refused form (a bad URL, no event type, the 16 taken) is shown again with what was wrong.
      if (
        !isDomainError(err) ||
        !['WEBHOOK_ENDPOINT_CREATE_FAILED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'].includes(err.code)
      )
        throw err;
      respond(ctx, newEndpointPage(pageCtx(ctx, 'endpoints'), values, `Not added: ${err.message}`));
    }
  };
}

function endpointMessage(m: string | undefined, recovering: string | undefined): string | undefined {
  if (recovering !== undefined && /^\d+$/.test(recovering))
    return `Recovery started: ${recovering} deliveries will be sent to this endpoint.`;
  if (m === 'disabled') return 'Disabled: nothing is sent to it until you enable it again.';
  if (m === 'enabled') return 'Enabled. Recover what it missed below.';
  return undefined;
}

function showEndpoint(dispatcher: EndpointPagesDispatcher, clock: () => Date): RouterMiddleware {
  return async (ctx) => {
    const id = idParam('we', ctx.params.endpointId);
    const [{ endpoint }, deliveries] = await Promise.all([
      dispatcher.getEndpoint(scopeOf(ctx), requestId(ctx), id),
      dispatcher.endpointDeliveries(scopeOf(ctx), requestId(ctx), id, one(ctx.query.page)),
    ]);
    const message = endpointMessage(one(ctx.query.m), one(ctx.query.recovering));
    // The recovery form starts at the time it was disabled (or a day back), as far as 14 days allow.
    const since = endpoint.disabledReason?.at ?? new Date(clock().getTime() - 24 * 3_600_000).toISOString();
    const page = endpointPage(pageCtx(ctx, 'endpoints'), endpoint, deliveries, UTC_MINUTE(new Date(since)), message);
    respond(ctx, page);
  };
}

const CONFIRMS = [
  {
    action: 'disable',
    title: 'Disable this endpoint?',
    explanation: (id: string) =>
      `Nothing will be sent to ${id} until it is enabled again; its deliveries still waiting end unsent.`,
    label: 'Yes, disable it',
  },
  {
    action: 'enable',
    title: 'Enable this endpoint?',
    explanation: (id: string) => `${id} will receive the events of its types from now on; then recover what it missed.`,
    label: 'Yes, enable it',
  },
  {
    action: 'rotate_secret',
    title: 'Rotate the signing secret?',
    explanation: (id: string) =>
      `${id} gets a new signing secret, shown once on the next page; the current one keeps signing beside it for ` +
      '24 hours (D50).',
    label: 'Yes, rotate it',
  },
] as const;

/** Disable, enable and rotate: a confirm page each, then the POST it sends. */
function mountEndpointActions(pages: Router, dispatcher: EndpointPagesDispatcher, session: Middleware): void {
  for (const { action, title, explanation, label } of CONFIRMS)
    pages.get(`${BASE}/:endpointId/${action}`, session, async (ctx) => {
      const id = idParam('we', ctx.params.endpointId);
      // Read first, so another organization's id is "not found" here already, not only after confirming.
      await dispatcher.getEndpoint(scopeOf(ctx), requestId(ctx), id);
      const to = `/dashboard${BASE}/${id}`;
      respond(ctx, confirmPage(pageCtx(ctx, 'endpoints'), title, explanation(id), `${to}/${action}`, {}, to, label));
    });

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const)
    pages.post(`${BASE}/:endpointId/${action}`, session, async (ctx) => {
      await verifiedForm(ctx);
      const id = idParam('we', ctx.params.endpointId);
      await dispatcher.updateEndpoint(scopeOf(ctx), requestId(ctx), id, { disabled });
      seeOther(ctx, `/dashboard${BASE}/${id}?m=${disabled ? 'disabled' : 'enabled'}`);
    });

  pages.post(`${BASE}/:endpointId/rotate_secret`, session, async (ctx) => {
    await verifiedForm(ctx);
    const id = idParam('we', ctx.params.endpointId);
    const { endpoint } = await dispatcher.rotateEndpointSecret(scopeOf(ctx), requestId(ctx), id);
    respond(ctx, secretPage(pageCtx(ctx, 'endpoints'), endpoint, true));
  });
}

const sinceRequired = () => new DomainError('INVALID_REQUEST', 'Give the time to recover from, e.g. 2026-11-24T10:00.');

/** Recover what an endpoint missed (D50): since a time, its failed deliveries and the events it did not get. */
function mountEndpointRecovery(
  pages: Router,
  dispatcher: EndpointPagesDispatcher,
  session: Middleware,
  budget: Middleware,
): void {
  pages.get(`${BASE}/:endpointId/recover`, session, async (ctx) => {
    const id = idParam('we', ctx.params.endpointId);
    await dispatcher.getEndpoint(scopeOf(ctx), requestId(ctx), id);
    const since = sinceFromForm(one(ctx.query.since));
    if (since === undefined) throw sinceRequired();
    respond(
      ctx,
      confirmPage(
        pageCtx(ctx, 'endpoints'),
        'Recover what this endpoint missed?',
        `Every delivery to ${id} that failed since ${since}, and every event since then of its types that it did ` +
          'not get while disabled, will be sent to it, once each (D50).',
        `/dashboard${BASE}/${id}/recover`,
        { since },
        `/dashboard${BASE}/${id}`,
        'Yes, send them',
      ),
    );
  });

  pages.post(`${BASE}/:endpointId/recover`, session, budget, async (ctx) => {
    const form = await verifiedForm(ctx);
    const id = idParam('we', ctx.params.endpointId);
    const since = sinceFromForm(form.get('since') ?? undefined);
    if (since === undefined) throw sinceRequired();
    const { recovering } = await dispatcher.recover(scopeOf(ctx), requestId(ctx), since, id);
    seeOther(ctx, `/dashboard${BASE}/${id}?recovering=${recovering}`);
  });
}

export const mountEndpointPages: MountSection = (pages, deps, session) => {
  const dispatcher = deps.upstreams.dispatcher;
  pages.get(BASE, session, async (ctx) => {
    const { endpoints } = await dispatcher.listEndpoints(scopeOf(ctx), requestId(ctx));
    const message = one(ctx.query.m) === 'deleted' ? 'Deleted.' : undefined;
    respond(ctx, endpointsPage(pageCtx(ctx, 'endpoints'), endpoints, message));
  });
  pages.get(`${BASE}/new`, session, (ctx) => respond(ctx, newEndpointPage(pageCtx(ctx, 'endpoints'))));
  pages.post(BASE, session, addEndpoint(dispatcher));
  pages.get(`${BASE}/:endpointId`, session, showEndpoint(dispatcher, deps.clock));
  mountEndpointActions(pages, dispatcher, session);
  mountEndpointRecovery(pages, dispatcher, session, withinBudget(deps));
};
