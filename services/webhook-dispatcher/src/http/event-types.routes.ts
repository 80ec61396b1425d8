import Router from '@koa/router';
import { parseOrThrow } from '@checkout/http';
import {
  EVENT_CATALOG,
  ListEventTypesQuery,
  eventBodyJsonSchema,
  type EventTypeInfo,
  type EventTypeList,
} from '@checkout/contracts';

/** D49: the event catalog, each type with its description and its body's JSON Schema (built once: it never changes). */
export function eventTypesRoutes(): Router {
  const router = new Router({ prefix: '/internal/event-types' });
  const catalog: EventTypeInfo[] = EVENT_CATALOG.map((entry) => ({
    type: entry.type,
    description: entry.description,
    schema: eventBodyJsonSchema(entry.type),
  }));

  router.get('/', (ctx) => {
    const { page, limit } = parseOrThrow(ListEventTypesQuery, ctx.query, 'INVALID_REQUEST');
    const body: EventTypeList = {
      eventTypes: catalog.slice((page - 1) * limit, page * limit),
      pagination: { page, limit, total: catalog.length, hasMore: page * limit < catalog.length },
    };
    ctx.body = body;
  });

  return router;
}
