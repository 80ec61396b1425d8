import Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError } from '@checkout/errors';
import { jsonBody, parseOrThrow, requireScope } from '@checkout/http';
import {
  CreateWebhookEndpointRequest,
  INTERNAL_API_HEADERS,
  ListWebhookEndpointsQuery,
  derivedId,
  type Scope,
  type EndpointDeliveriesResponse,
  UpdateWebhookEndpointRequest,
  isIdOf,
  type WebhookEndpointDeleted,
  type WebhookEndpointList,
  type WebhookEndpointResponse,
  type WebhookEndpointSecretResponse,
} from '@checkout/contracts';
import type { WebhookEndpoints } from '../domain/webhook-endpoints';
import { presentDelivery } from './event.presenter';
import { presentEndpoint, presentEndpointWithSecret } from './webhook-endpoint.presenter';

function endpointIdParam(value: string | undefined): string {
  if (!isIdOf('we', value))
    throw new DomainError('INVALID_WEBHOOK_ENDPOINT_ID', `"${value ?? ''}" is not a webhook endpoint id.`);
  return value;
}

/**
 * D42 for an endpoint's create: with an Idempotency-Key the endpoint's id comes from the gateway's record of it and
 * from when the key's life began, so a retry after a 5xx meets the endpoint the first try made (one endpoint, one
 * secret), and a key used again after its 24 hours makes a new one. Not secret: an endpoint id is no capability.
 */
function endpointIdFor(ctx: Context, scope: Scope): string | undefined {
  const record = ctx.get(INTERNAL_API_HEADERS.idempotencyRecord);
  if (record === '') return undefined;
  const since = ctx.get(INTERNAL_API_HEADERS.idempotencySince);
  return derivedId('we', scope.mode, `webhook-endpoint\n${scope.organizationId}\n${record}\n${since}`);
}

/** D50's dashboard: the attempts of one endpoint, its deliveries newest event first (a page without a total). */
async function endpointDeliveries(
  ctx: Context,
  endpointId: string | undefined,
  endpoints: WebhookEndpoints,
): Promise<EndpointDeliveriesResponse> {
  const scope = requireScope(ctx.state);
  const id = endpointIdParam(endpointId);
  const { page, limit } = parseOrThrow(ListWebhookEndpointsQuery, ctx.query, 'INVALID_REQUEST');
  const { deliveries, hasMore } = await endpoints.deliveries(scope, id, page, limit);
  return {
    deliveries: deliveries.map((d) => ({
      ...presentDelivery(d),
      eventId: d.eventId,
      eventType: d.eventType,
      updatedAt: d.updatedAt.toISOString(),
    })),
    pagination: { page, limit, hasMore },
  };
}

/** Internal webhook endpoints API (D50); the gateway maps `/v0/webhook_endpoints…` here with the merchant's scope. */
export function webhookEndpointsRoutes(deps: { endpoints: WebhookEndpoints }): Router {
  const router = new Router({ prefix: '/internal/webhook-endpoints' });

  router.get('/', async (ctx) => {
    const scope = requireScope(ctx.state);
    const { page, limit } = parseOrThrow(ListWebhookEndpointsQuery, ctx.query, 'INVALID_REQUEST');
    const { endpoints, total } = await deps.endpoints.list(scope, page, limit);
    const body: WebhookEndpointList = {
      endpoints: endpoints.map(presentEndpoint),
      pagination: { page, limit, total, hasMore: page * limit < total },
    };
    ctx.body = body;
  });

  router.post('/', jsonBody(), async (ctx) => {
    const scope = requireScope(ctx.state);
    const input = parseOrThrow(
      CreateWebhookEndpointRequest,
      ctx.request.jsonBody ?? {},
      'WEBHOOK_ENDPOINT_CREATE_FAILED',
    );
    const body: WebhookEndpointSecretResponse = {
      endpoint: presentEndpointWithSecret(await deps.endpoints.create(scope, input, endpointIdFor(ctx, scope))),
    };
    ctx.status = 201;
    ctx.body = body;
  });

  router.get('/:endpointId', async (ctx) => {
    const scope = requireScope(ctx.state);
    const body: WebhookEndpointResponse = {
      endpoint: presentEndpoint(await deps.endpoints.get(scope, endpointIdParam(ctx.params.endpointId))),
    };
    ctx.body = body;
  });

  router.patch('/:endpointId', jsonBody(), async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = endpointIdParam(ctx.params.endpointId);
    const patch = parseOrThrow(
      UpdateWebhookEndpointRequest,
      ctx.request.jsonBody ?? {},
      'WEBHOOK_ENDPOINT_UPDATE_FAILED',
    );
    const body: WebhookEndpointResponse = { endpoint: presentEndpoint(await deps.endpoints.update(scope, id, patch)) };
    ctx.body = body;
  });

  router.delete('/:endpointId', async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = endpointIdParam(ctx.params.endpointId);
    await deps.endpoints.delete(scope, id);
    const body: WebhookEndpointDeleted = { id, deleted: true };
    ctx.body = body;
  });

  router.get('/:endpointId/deliveries', async (ctx) => {
    ctx.body = await endpointDeliveries(ctx, ctx.params.endpointId, deps.endpoints);
  });

  router.post('/:endpointId/rotate-secret', async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = endpointIdParam(ctx.params.endpointId);
    const body: WebhookEndpointSecretResponse = {
      endpoint: presentEndpointWithSecret(await deps.endpoints.rotateSecret(scope, id)),
    };
    ctx.body = body;
  });

  return router;
}
