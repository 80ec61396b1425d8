import Router from '@koa/router';
import { DomainError, isDomainError } from '@checkout/errors';
import { jsonBody, parseOrThrow, requireScope } from '@checkout/http';
import {
  FAILED_DELIVERIES_SHOWN,
  INTERNAL_API_HEADERS,
  ListEventsQuery,
  type EventPageResponse,
  RecoverEventsRequest,
  RedeliverRequest,
  isIdOf,
  type DeliveryStatsResponse,
  type FailedDeliveriesResponse,
} from '@checkout/contracts';
import type { EventLog } from '../domain/event-log';
import type { Recorder } from '../domain/engine/record';
import type { Recovery } from '../domain/engine/recovery';
import { presentDelivery, presentEvent } from './event.presenter';

/**
 * The list's query (D34, D51). A refusal of `page` alone says so in its message, not only in `details`: past the
 * bound of delivery-filtered lists (DELIVERY_SEARCH_MAX) the dashboard shows that message beside its filters.
 */
function listQuery(query: unknown): ListEventsQuery {
  try {
    return parseOrThrow(ListEventsQuery, query, 'INVALID_REQUEST');
  } catch (err) {
    const [only, ...more] = (isDomainError(err) && err.details) || [];
    if (only?.path === 'page' && more.length === 0)
      throw new DomainError('INVALID_REQUEST', only.message, { details: [only] });
    throw err;
  }
}

function eventIdParam(value: string | undefined): string {
  if (!isIdOf('evt', value)) throw new DomainError('INVALID_EVENT_ID', `"${value ?? ''}" is not an event id.`);
  return value;
}

/** Internal events API (D34); the gateway has authenticated the merchant and passes its scope in headers. */
export function eventsRoutes(deps: {
  eventLog: EventLog;
  record: Pick<Recorder, 'redeliver'>;
  recovery: Pick<Recovery, 'recover'>;
  clock: () => Date;
}): Router {
  const router = new Router({ prefix: '/internal/events' });

  router.get('/', async (ctx) => {
    const scope = requireScope(ctx.state);
    const { page, limit, createdAfter, createdBefore, ...filter } = listQuery(ctx.query);
    const withTotal = !ctx.get(INTERNAL_API_HEADERS.withoutTotal);
    const { events, total, hasMore } = await deps.eventLog.page(
      scope,
      {
        ...filter,
        ...(createdAfter !== undefined && { createdAfter: new Date(createdAfter) }),
        ...(createdBefore !== undefined && { createdBefore: new Date(createdBefore) }),
      },
      page,
      limit,
      withTotal,
    );
    if (!withTotal) {
      const body: EventPageResponse = { events: events.map(presentEvent), pagination: { page, limit, hasMore } };
      ctx.body = body;
      return;
    }
    ctx.body = { events: events.map(presentEvent), pagination: { page, limit, total: total ?? 0, hasMore } };
  });

  router.post('/recover', jsonBody(), async (ctx) => {
    const scope = requireScope(ctx.state);
    const { since, endpointId } = parseOrThrow(RecoverEventsRequest, ctx.request.jsonBody ?? {}, 'INVALID_REQUEST');
    const recovering = await deps.recovery.recover(scope, new Date(since), endpointId);
    ctx.status = 202;
    ctx.body = { recovering };
  });

  // D47 (the dashboard): registered before /:eventId, which would otherwise take the name for an id.
  router.get('/delivery-stats', async (ctx) => {
    const { from, hosts } = await deps.eventLog.hostStats(requireScope(ctx.state), deps.clock());
    const body: DeliveryStatsResponse = { from: from.toISOString(), hosts };
    ctx.body = body;
  });

  router.get('/failed-deliveries', async (ctx) => {
    const failed = await deps.eventLog.recentlyFailed(requireScope(ctx.state), FAILED_DELIVERIES_SHOWN);
    const body: FailedDeliveriesResponse = {
      deliveries: failed.map((d) => ({
        ...presentDelivery(d),
        eventId: d.eventId,
        updatedAt: d.updatedAt.toISOString(),
      })),
    };
    ctx.body = body;
  });

  router.get('/:eventId', async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = eventIdParam(ctx.params.eventId);
    const found = await deps.eventLog.eventWithDeliveries(scope, id);
    if (!found) throw new DomainError('EVENT_NOT_FOUND', `No event ${id}.`);
    ctx.body = { event: presentEvent(found.event), deliveries: found.deliveries.map(presentDelivery) };
  });

  router.post('/:eventId/redeliver', jsonBody(), async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = eventIdParam(ctx.params.eventId);
    const { endpointId } = parseOrThrow(RedeliverRequest, ctx.request.jsonBody ?? {}, 'INVALID_REQUEST');
    const delivery = await deps.record.redeliver(scope, id, endpointId);
    ctx.status = 202;
    ctx.body = { delivery: presentDelivery(delivery) };
  });

  return router;
}
