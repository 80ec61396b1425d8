import { z } from 'zod';
import { HttpUrl, Pagination, Timestamp, paginationQueryShape } from './common';
import { Metadata } from './user-data';
import { EVENT_TYPES, type EventType } from './event-catalog';
import { WebhookEndpointId } from './ids';

// D50: webhook endpoints, registered once per organization and mode, each with the event types it receives and a
// signing secret of its own. The dispatcher owns them (it owns events and deliveries); the gateway routes
// `/v0/webhook_endpoints` to it as it does `/v0/events`.

/** D50: endpoints per organization and mode. */
export const WEBHOOK_ENDPOINTS_MAX = 16;
/** D50: how long the secret a rotation replaced keeps signing beside the new one. */
export const ENDPOINT_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
export const ENDPOINT_DESCRIPTION_MAX = 500;
/** `enabledEvents: ["*"]`: every type of the catalog, those added later included. */
export const ALL_EVENTS = '*';

const ENABLED_EVENT_VALUES = [ALL_EVENTS, ...EVENT_TYPES] as const;
const isCatalogType = (value: unknown): value is EventType => (EVENT_TYPES as readonly unknown[]).includes(value);

const STANDS_ALONE = '"*" stands alone: it already means every event type';

/** Why a list is neither `["*"]` nor catalog types: the one message a merchant gets for either branch failing. */
function enabledEventsProblem(input: unknown): string {
  if (!Array.isArray(input)) return 'must be a list: ["*"] or event types of GET /v0/event_types';
  if (input.length === 0) return 'must name at least one event type, or be ["*"]';
  if (input.includes(ALL_EVENTS)) return STANDS_ALONE;
  if (input.length > EVENT_TYPES.length) return `must hold at most ${EVENT_TYPES.length} event types`;
  const unknown = input.findIndex((type) => !isCatalogType(type));
  return unknown < 0
    ? 'must be ["*"] or event types of GET /v0/event_types'
    : `item ${unknown} must be "*" or an event type of GET /v0/event_types`;
}

// A union rather than one list with a refinement: the OpenAPI document then states the rule that "*" stands
// alone, so a client (or a fuzzer) building a body from the document never sends a list the API refuses.
export const EnabledEvents = z
  .union(
    [
      z
        .array(z.literal(ALL_EVENTS))
        .length(1, { error: STANDS_ALONE })
        .describe('`["*"]`: every event type, those added later too.')
        // Named, so that code generators see one type where create and update both use it.
        .meta({ id: 'EnabledEventsAll' }),
      z
        .array(z.enum(EVENT_TYPES))
        .min(1)
        .max(EVENT_TYPES.length)
        .describe('Event types from `GET /v0/event_types`, without `"*"`.')
        .meta({ id: 'EnabledEventTypes' }),
    ],
    { error: (issue) => enabledEventsProblem(issue.input) },
  )
  // Order and repeats carry no meaning: kept once each, in catalog order.
  .transform((types): Array<(typeof ENABLED_EVENT_VALUES)[number]> =>
    ENABLED_EVENT_VALUES.filter((type) => (types as readonly string[]).includes(type)),
  )
  .describe(
    'The event types this endpoint receives: `["*"]` for every type (those added later too), ' +
      'or a list of types from `GET /v0/event_types`; `"*"` stands alone.',
  );
export type EnabledEvents = z.output<typeof EnabledEvents>;

/** Whether an endpoint subscribed to `enabled` receives events of `type`. */
export function subscribesTo(enabled: readonly string[], type: EventType): boolean {
  return enabled.includes(ALL_EVENTS) || enabled.includes(type);
}

const description = z
  .string()
  .max(ENDPOINT_DESCRIPTION_MAX)
  .describe(`What this endpoint is for, at most ${ENDPOINT_DESCRIPTION_MAX} characters; "" removes it.`);

export const CreateWebhookEndpointRequest = z
  .strictObject({
    url: HttpUrl.describe(
      'Where deliveries are POSTed: an absolute http(s) URL of at most 2,048 characters. Internal addresses are refused at delivery time (D33).',
    ),
    enabledEvents: EnabledEvents,
    description: description.optional(),
    metadata: Metadata.optional(),
  })
  .meta({ id: 'CreateWebhookEndpointRequest' });
export type CreateWebhookEndpointRequest = z.infer<typeof CreateWebhookEndpointRequest>;

export const UpdateWebhookEndpointRequest = z
  .strictObject({
    url: HttpUrl.optional().describe('New URL: deliveries made from now on go there; earlier ones keep theirs.'),
    enabledEvents: EnabledEvents.optional(),
    description: description.optional(),
    metadata: Metadata.optional(),
    disabled: z
      .boolean()
      .optional()
      .describe(
        '`true` stops deliveries to this endpoint; `false` enables it again (then `POST /v0/events/recover` with its `endpointId` sends what it missed).',
      ),
  })
  .meta({ id: 'UpdateWebhookEndpointRequest' });
export type UpdateWebhookEndpointRequest = z.infer<typeof UpdateWebhookEndpointRequest>;

export const DISABLED_REASONS = ['requested', 'failing'] as const;

export const WebhookEndpoint = z
  .object({
    id: WebhookEndpointId,
    url: z.string().describe('Where deliveries are POSTed.'),
    enabledEvents: z.array(z.enum(ENABLED_EVENT_VALUES)).describe('`["*"]`, or the event types it receives.'),
    description: z.string().optional().describe('Absent when none was given.'),
    metadata: Metadata,
    disabled: z.boolean().describe('True while nothing is delivered to it.'),
    disabledReason: z
      .object({
        code: z
          .enum(DISABLED_REASONS)
          .describe(
            '`requested`: disabled through the API or the dashboard; `failing`: every attempt failed for days.',
          ),
        message: z.string(),
        at: Timestamp.describe('When it was disabled.'),
      })
      .optional()
      .describe('Why it is disabled; absent while it is enabled.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint (D50).' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z
    .string()
    .describe(
      'The signing secret (`whsec_…`), shown only in this answer: deliveries carry Standard Webhooks `webhook-signature` headers made with it (D35, D50).',
    ),
}).meta({ id: 'WebhookEndpointWithSecret' });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

/** `GET`/`PATCH /v0/webhook_endpoints/:id` → 200. */
export const WebhookEndpointResponse = z.object({ endpoint: WebhookEndpoint }).meta({ id: 'WebhookEndpointResponse' });
export type WebhookEndpointResponse = z.infer<typeof WebhookEndpointResponse>;

/** `POST /v0/webhook_endpoints` → 201 and `POST …/rotate_secret` → 200: the endpoint with its secret. */
export const WebhookEndpointSecretResponse = z
  .object({ endpoint: WebhookEndpointWithSecret })
  .meta({ id: 'WebhookEndpointSecretResponse' });
export type WebhookEndpointSecretResponse = z.infer<typeof WebhookEndpointSecretResponse>;

export const WebhookEndpointList = z
  .object({ endpoints: z.array(WebhookEndpoint), pagination: Pagination })
  .meta({ id: 'WebhookEndpointList' });
export type WebhookEndpointList = z.infer<typeof WebhookEndpointList>;

/** `DELETE /v0/webhook_endpoints/:id` → 200. */
export const WebhookEndpointDeleted = z
  .object({ id: WebhookEndpointId, deleted: z.literal(true) })
  .meta({ id: 'WebhookEndpointDeleted' });
export type WebhookEndpointDeleted = z.infer<typeof WebhookEndpointDeleted>;

export const ListWebhookEndpointsQuery = z
  .strictObject({ ...paginationQueryShape })
  .meta({ id: 'ListWebhookEndpointsQuery' });
export type ListWebhookEndpointsQuery = z.infer<typeof ListWebhookEndpointsQuery>;

// ---------------------------------------------------------------------------------------------------------
// The event catalog as the API shows it (D49)

export const EventTypeInfo = z
  .object({
    type: z.enum(EVENT_TYPES),
    description: z.string(),
    schema: z
      .record(z.string(), z.unknown())
      .describe('JSON Schema (draft 2020-12) of the body a delivery of this type carries.'),
  })
  .meta({ id: 'EventTypeInfo' });
export type EventTypeInfo = z.infer<typeof EventTypeInfo>;

export const EventTypeList = z
  .object({ eventTypes: z.array(EventTypeInfo), pagination: Pagination })
  .meta({ id: 'EventTypeList' });
export type EventTypeList = z.infer<typeof EventTypeList>;

export const ListEventTypesQuery = z.strictObject({ ...paginationQueryShape }).meta({ id: 'ListEventTypesQuery' });
export type ListEventTypesQuery = z.infer<typeof ListEventTypesQuery>;
