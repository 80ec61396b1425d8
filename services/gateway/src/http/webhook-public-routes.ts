import {
  CreateWebhookEndpointRequest,
  DELIVERY_SEARCH_MAX,
  EventListResponse,
  EventResponse,
  EventTypeList,
  ListEventsQuery,
  ListEventTypesQuery,
  ListWebhookEndpointsQuery,
  RecoverEventsRequest,
  RecoverEventsResponse,
  RedeliverRequest,
  RedeliverResponse,
  UpdateWebhookEndpointRequest,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
} from '@checkout/contracts';
import { declareRoutes, LINKS, linksTo, type PublicRoute } from './public-route';

/** The public routes the webhook dispatcher owns: events (D34, D51) and webhook endpoints (D50). */
export const WEBHOOK_PUBLIC_ROUTES: readonly PublicRoute[] = [
  ...declareRoutes({ tag: 'Events', upstream: 'dispatcher' }, [
    {
      route: 'GET /v0/events -> /internal/events',
      operationId: 'listEvents',
      summary: 'List events, newest first',
      description:
        `Webhook events of this key's organization and mode, newest first, paginated; filters \`type\` ` +
        `and \`sessionId\` (D45's relay polls this), and by their deliveries \`deliveryStatus\` and ` +
        `\`endpointId\` (D51). A list filtered by its deliveries reaches page × limit ≤ ${DELIVERY_SEARCH_MAX} ` +
        `(400 \`INVALID_REQUEST\` past it: narrow the window with \`createdBefore\`), and its \`total\` ` +
        `counts up to ${DELIVERY_SEARCH_MAX}.`,
      query: { schema: ListEventsQuery },
      success: { status: 200, schema: EventListResponse },
      links: linksTo(['getEvent', 'redeliverEvent'], 'eventId', '/events/0/id'),
      errors: ['INVALID_REQUEST'],
    },
    {
      route: 'GET /v0/events/:eventId -> /internal/events/:eventId',
      operationId: 'getEvent',
      summary: 'Retrieve an event with its deliveries and attempts',
      description:
        "The event's body as delivered and every delivery of it with each attempt: time, HTTP status or a coarse reason, duration (D31, D34).",
      success: { status: 200, schema: EventResponse },
      errors: ['INVALID_EVENT_ID', 'EVENT_NOT_FOUND'],
    },
    {
      route: 'POST /v0/events/:eventId/redeliver -> /internal/events/:eventId/redeliver',
      operationId: 'redeliverEvent',
      recordsEvents: true,
      summary: 'Deliver an event again (new delivery id, same event id)',
      description:
        'Starts a new delivery of the event to its callback URL (D34): the same event id and body, a new delivery id, retried as any delivery (D31).',
      body: { schema: RedeliverRequest, required: false },
      success: { status: 202, schema: RedeliverResponse },
      errors: [
        'INVALID_EVENT_ID',
        'EVENT_NOT_FOUND',
        'INVALID_REQUEST',
        'WEBHOOK_ENDPOINT_NOT_FOUND',
        'WEBHOOK_ENDPOINT_DISABLED',
      ],
    },
    {
      route: 'POST /v0/events/recover -> /internal/events/recover',
      operationId: 'recoverEvents',
      recordsEvents: true,
      summary: 'Deliver again, once each, every delivery that failed since a time (at most 14 days back)',
      description:
        'Every delivery of this organization and mode that ended failed at or after `since` gets ' +
        'one new delivery, as redeliver (D44); deliveries recovered before are left out. One ' +
        'recovery per organization and mode runs at a time: another meanwhile is 409 ' +
        '`RECOVERY_IN_PROGRESS` with `Retry-After`.',
      body: { schema: RecoverEventsRequest, required: true },
      success: { status: 202, schema: RecoverEventsResponse },
      errors: [
        'INVALID_REQUEST',
        'PAYLOAD_TOO_LARGE',
        'RECOVERY_IN_PROGRESS',
        'WEBHOOK_ENDPOINT_NOT_FOUND',
        'WEBHOOK_ENDPOINT_DISABLED',
      ],
    },
    {
      route: 'GET /v0/event_types -> /internal/event-types',
      operationId: 'listEventTypes',
      summary: 'List the event types, each with its description and the JSON Schema of its body (D49)',
      description:
        'Every event type this API sends, with what it means and the JSON Schema of its `data` ' +
        "(D49): the catalog is a contract, a type's body only gains optional fields. Paged by " +
        '`page` and `limit` (at most 100).',
      query: { schema: ListEventTypesQuery },
      success: { status: 200, schema: EventTypeList },
      errors: ['INVALID_REQUEST'],
    },
  ]),
  ...declareRoutes({ tag: 'Webhook endpoints', upstream: 'dispatcher' }, [
    {
      route: 'GET /v0/webhook_endpoints -> /internal/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints, newest first (D50)',
      description:
        "This mode's webhook endpoints, newest first, without their secrets (D50). Paged by `page` and `limit` (at most 100); a mode has at most 16.",
      query: { schema: ListWebhookEndpointsQuery },
      success: { status: 200, schema: WebhookEndpointList },
      links: linksTo(LINKS.endpoint, 'endpointId', '/endpoints/0/id'),
      errors: ['INVALID_REQUEST'],
    },
    {
      route: 'POST /v0/webhook_endpoints -> /internal/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      summary:
        'Register a webhook endpoint: it receives every event of the types it is subscribed to, ' +
        'signed with its own secret, shown only in this answer (D50; at most 16 per mode)',
      description:
        'Registers a URL and the event types it receives (`["*"]` for every type, those added ' +
        'later too). Its signing secret is in this answer only; deliveries are signed with it ' +
        '(Standard Webhooks). At most 16 endpoints per mode, naming at most WEBHOOK_ENDPOINT_HOSTS_MAX ' +
        '(8 by default) distinct hosts: a 17th endpoint, or one on a host one too many, is 400 ' +
        '`WEBHOOK_ENDPOINT_LIMIT_REACHED`. With an `Idempotency-Key`, a retry gets the same ' +
        'answer (D42), the same endpoint, even once that endpoint is deleted: its id then answers ' +
        '404 `WEBHOOK_ENDPOINT_NOT_FOUND`; a retry after a 5xx is the same endpoint with the same ' +
        'secret, never a second one.',
      body: { schema: CreateWebhookEndpointRequest, required: true },
      success: { status: 201, schema: WebhookEndpointSecretResponse },
      links: linksTo(LINKS.endpoint, 'endpointId', '/endpoint/id'),
      errors: [
        'WEBHOOK_ENDPOINT_CREATE_FAILED',
        'WEBHOOK_ENDPOINT_LIMIT_REACHED',
        'INVALID_REQUEST',
        'PAYLOAD_TOO_LARGE',
      ],
    },
    {
      route: 'GET /v0/webhook_endpoints/:endpointId -> /internal/webhook-endpoints/:endpointId',
      operationId: 'getWebhookEndpoint',
      summary: 'Retrieve a webhook endpoint (without its secret)',
      description:
        "One endpoint of this mode, without its secret (D50); another organization's or mode's is 404 `WEBHOOK_ENDPOINT_NOT_FOUND`.",
      success: { status: 200, schema: WebhookEndpointResponse },
      errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    },
    {
      route: 'PATCH /v0/webhook_endpoints/:endpointId -> /internal/webhook-endpoints/:endpointId',
      operationId: 'updateWebhookEndpoint',
      summary:
        'Change its url, enabledEvents, description or metadata, or disable it (disabled: true) and enable it again',
      description:
        'Changes what is sent (only the fields given). `disabled: true` stops deliveries to it ' +
        '(those still waiting end `failed`, unsent); after `disabled: false`, what it missed ' +
        'comes back with recover and its `endpointId` (D50, D44). A `url` on a host beyond the ' +
        "mode's distinct hosts is 400 `WEBHOOK_ENDPOINT_LIMIT_REACHED`.",
      body: { schema: UpdateWebhookEndpointRequest, required: false },
      success: { status: 200, schema: WebhookEndpointResponse },
      errors: [
        'INVALID_WEBHOOK_ENDPOINT_ID',
        'WEBHOOK_ENDPOINT_NOT_FOUND',
        'WEBHOOK_ENDPOINT_UPDATE_FAILED',
        'WEBHOOK_ENDPOINT_LIMIT_REACHED',
        'INVALID_REQUEST',
      ],
    },
    {
      route: 'DELETE /v0/webhook_endpoints/:endpointId -> /internal/webhook-endpoints/:endpointId',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint: nothing more is sent to it, its pending deliveries included',
      description:
        'Removes the endpoint: nothing more is sent to it, deliveries still waiting included (they end `failed`, unsent) (D50).',
      success: { status: 200, schema: WebhookEndpointDeleted },
      errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    },
    {
      route:
        'POST /v0/webhook_endpoints/:endpointId/rotate_secret -> /internal/webhook-endpoints/:endpointId/rotate-secret',
      operationId: 'rotateWebhookEndpointSecret',
      summary:
        'Give the endpoint a new signing secret, shown only in this answer; the old one keeps signing beside it for 24 hours (D50)',
      description:
        'A new signing secret, shown only in this answer. For 24 hours deliveries carry a ' +
        'signature by each secret, so a receiver can switch without missing one (D50).',
      noIdempotencyKey: true,
      success: { status: 200, schema: WebhookEndpointSecretResponse },
      errors: ['INVALID_WEBHOOK_ENDPOINT_ID', 'WEBHOOK_ENDPOINT_NOT_FOUND'],
    },
  ]),
];
