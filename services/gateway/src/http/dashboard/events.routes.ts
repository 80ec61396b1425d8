import type { Middleware } from 'koa';
import { DomainError, isDomainError } from '@checkout/errors';
import { sinceFromForm } from '../../domain/dashboard-views';
import { confirmPage } from './layout';
import { eventPage, eventsPage, type EventFilters } from './events.render';
import {
  idParam,
  one,
  pageCtx,
  requestId,
  respond,
  scopeOf,
  seeOther,
  twentyFourHoursBefore,
  verifiedForm,
  withinBudget,
  type DashboardDeps,
  type MountSection,
} from './kit';
import { overviewPage } from './overview.render';

// Events and their deliveries (D34, D49, D51): the failed deliveries, the events with their filters, an event
// with each delivery's attempts; redeliver one event (D34), recover every failed delivery since a time (D44).

function eventsList(deps: DashboardDeps): Middleware {
  return async (ctx) => {
    // D51's filters; the times are datetime-local fields, read as UTC like the recovery's.
    const filters: EventFilters = {
      type: one(ctx.query.type),
      deliveryStatus: one(ctx.query.deliveryStatus),
      endpointId: one(ctx.query.endpointId)?.trim(),
      createdAfter: one(ctx.query.createdAfter),
      createdBefore: one(ctx.query.createdBefore),
    };
    const time = (value: string | undefined) => (value ? (sinceFromForm(value) ?? value) : undefined);
    const recovering = one(ctx.query.recovering);
    const message =
      recovering !== undefined && /^\d+$/.test(recovering)
        ? `Recovery started: ${recovering} failed deliveries will be sent again.`
        : undefined;
    const failed = await deps.upstreams.dispatcher.failedDeliveries(scopeOf(ctx), requestId(ctx));
    try {
      const list = await deps.upstreams.dispatcher.listEvents(scopeOf(ctx), requestId(ctx), {
        ...filters,
        createdAfter: time(filters.createdAfter),
        createdBefore: time(filters.createdBefore),
        page: one(ctx.query.page),
        limit: '25',
      });
      respond(ctx, eventsPage(pageCtx(ctx, 'events'), list, failed, filters, message));
    } catch (err) {
      // A filter the dispatcher refused (a malformed endpoint id or time): the page says so beside the filters.
      if (!isDomainError(err) || err.code !== 'INVALID_REQUEST') throw err;
      const empty = { events: [], pagination: { page: 1, limit: 25, hasMore: false } };
      const error = `Those filters are not valid: ${err.message}`;
      respond(ctx, eventsPage(pageCtx(ctx, 'events'), empty, failed, filters, message, error));
    }
  };
}

const REDELIVERED =
  'A new delivery of this event has started; this page shows its attempts as they happen when you reload it.';

export const mountEventPages: MountSection = (pages, deps, session) => {
  pages.get('/events', session, eventsList(deps));

  pages.get('/events/:eventId', session, async (ctx) => {
    const id = idParam('evt', ctx.params.eventId);
    const found = await deps.upstreams.dispatcher.getEvent(scopeOf(ctx), requestId(ctx), id);
    respond(
      ctx,
      eventPage(pageCtx(ctx, 'events'), found, one(ctx.query.m) === 'redelivered' ? REDELIVERED : undefined),
    );
  });

  pages.get('/events/:eventId/redeliver', session, async (ctx) => {
    const id = idParam('evt', ctx.params.eventId);
    // Read first, so another organization's id is "not found" here already, not only after confirming.
    await deps.upstreams.dispatcher.getEvent(scopeOf(ctx), requestId(ctx), id);
    respond(
      ctx,
      confirmPage(
        pageCtx(ctx, 'events'),
        'Redeliver this event?',
        `A new delivery of ${id} (same event id, new delivery id) will be sent to its callback URL (D34).`,
        `/dashboard/events/${id}/redeliver`,
        {},
        `/dashboard/events/${id}`,
        'Yes, redeliver',
      ),
    );
  });

  pages.post('/events/:eventId/redeliver', session, withinBudget(deps), async (ctx) => {
    await verifiedForm(ctx);
    const id = idParam('evt', ctx.params.eventId);
    await deps.upstreams.dispatcher.redeliver(scopeOf(ctx), requestId(ctx), id);
    seeOther(ctx, `/dashboard/events/${id}?m=redelivered`);
  });
};

/** D44: every delivery of the organization and mode that failed since a time, sent again once. */
export const mountRecoveryPages: MountSection = (pages, deps, session) => {
  pages.get('/recover', session, async (ctx) => {
    const since = sinceFromForm(one(ctx.query.since));
    if (since === undefined) {
      const charts = { hosts: '<p><a href="/dashboard">See the charts on the overview.</a></p>', payments: '' };
      const from = twentyFourHoursBefore(deps.clock());
      respond(ctx, overviewPage(pageCtx(ctx, 'overview'), charts, from, 'Recover failed deliveries'));
      return;
    }
    respond(
      ctx,
      confirmPage(
        pageCtx(ctx, 'events'),
        'Recover failed deliveries?',
        `Every delivery of this organization and mode that ended failed since ${since} will be sent again, once, ` +
          'as a new delivery (D44).',
        '/dashboard/recover',
        { since },
        '/dashboard/events',
        'Yes, send them again',
      ),
    );
  });

  pages.post('/recover', session, withinBudget(deps), async (ctx) => {
    const form = await verifiedForm(ctx);
    const since = sinceFromForm(form.get('since') ?? undefined);
    if (since === undefined)
      throw new DomainError('INVALID_REQUEST', 'Give the time to recover from, e.g. 2026-11-24T10:00.');
    const { recovering } = await deps.upstreams.dispatcher.recover(scopeOf(ctx), requestId(ctx), since);
    seeOther(ctx, `/dashboard/events?recovering=${recovering}`);
  });
};
