import { z } from 'zod';
import { Pagination, Timestamp, isoTimeFilter, paginationQueryShape } from './common';
import { DeliveryId, SessionId, WebhookEndpointId } from './ids';
import { EventType, WebhookEvent } from './event-catalog';

// The events API (D44, D49): an event with its deliveries, the lists and searches, redelivery and recovery.

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const DeliveryStatus = z
  .enum(DELIVERY_STATUSES)
  .describe('`pending` until an attempt succeeds (`succeeded`) or the last one fails (`failed`).');
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

export const DeliveryAttempt = z
  .object({
    attempt: z.int().min(1).describe('1 for the first try.'),
    at: Timestamp.describe('When the attempt started.'),
    statusCode: z.int().nullable().describe('HTTP status received; null when there was no response.'),
    durationMs: z.int().min(0),
    error: z.string().nullable().describe('Why the attempt failed; null on success.'),
  })
  .meta({ id: 'DeliveryAttempt' });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const Delivery = z
  .object({
    id: DeliveryId.describe('Stable across the retries of one delivery (X-Service-Delivery-Id).'),
    url: z.string().describe("The URL the delivery posts to: the session's callback URL, or its webhook endpoint's."),
    endpointId: WebhookEndpointId.optional().describe(
      "The webhook endpoint this delivery is for (D50); absent on deliveries to a session's callback URL.",
    ),
    status: DeliveryStatus,
    attempts: z.array(DeliveryAttempt),
  })
  .meta({ id: 'Delivery' });
export type Delivery = z.infer<typeof Delivery>;

export const EventResponse = z
  .object({ event: WebhookEvent, deliveries: z.array(Delivery) })
  .meta({ id: 'EventResponse' });
export type EventResponse = z.infer<typeof EventResponse>;

/**
 * How far a list filtered by its deliveries (`deliveryStatus`, `endpointId`) reaches: page × limit at most this, and
 * its `total` counted up to this. Such a list is read by walking an index of deliveries to the page, so without a
 * bound one request could walk a merchant's whole delivery history; past it, narrow the window (`createdBefore`).
 */
export const DELIVERY_SEARCH_MAX = 10_000;

export const EventListResponse = z
  .object({
    events: z.array(WebhookEvent),
    pagination: Pagination.extend({
      total: z
        .int()
        .min(0)
        .describe(
          `Total number of matching events. Filtered by \`deliveryStatus\` or \`endpointId\`, counted ` +
            `up to ${DELIVERY_SEARCH_MAX}: ${DELIVERY_SEARCH_MAX} means that many or more.`,
        ),
    }),
  })
  .meta({ id: 'EventListResponse' });
export type EventListResponse = z.infer<typeof EventListResponse>;

/**
 * `POST /v0/events/:id/redeliver` body (optional): without `endpointId`, a new delivery to the session's callback
 * URL (D34); with it, to that webhook endpoint (D50).
 */
export const RedeliverRequest = z
  .strictObject({
    endpointId: WebhookEndpointId.optional().describe(
      "Deliver to this webhook endpoint of yours instead of the session's callback URL. It must not be disabled.",
    ),
  })
  .meta({ id: 'RedeliverRequest' });
export type RedeliverRequest = z.infer<typeof RedeliverRequest>;

/** `POST /v0/events/:id/redeliver` → 202: a new delivery of the same event. */
export const RedeliverResponse = z.object({ delivery: Delivery }).meta({ id: 'RedeliverResponse' });
export type RedeliverResponse = z.infer<typeof RedeliverResponse>;

/** D44: how far back `POST /v0/events/recover` may reach. */
export const RECOVER_MAX_AGE_DAYS = 14;
export const RECOVER_MAX_AGE_MS = RECOVER_MAX_AGE_DAYS * 24 * 60 * 60 * 1000;

export const RecoverEventsRequest = z
  .strictObject({
    since: z.iso
      .datetime({ offset: true })
      // Room for nanoseconds and an offset ("2026-11-21T10:00:00.123456789+05:30" is 35): no time needs more.
      .max(40)
      .describe(
        `ISO-8601 time, at most ${RECOVER_MAX_AGE_DAYS} days ago: every delivery that ended failed since then is delivered again.`,
      ),
    endpointId: WebhookEndpointId.optional().describe(
      'Only this webhook endpoint (D50): its deliveries that ended failed since `since`, and ' +
        'every event since then it is subscribed to and got no delivery of (it was disabled), ' +
        'each sent to it once.',
    ),
  })
  .meta({ id: 'RecoverEventsRequest' });
export type RecoverEventsRequest = z.infer<typeof RecoverEventsRequest>;

/**
 * `POST /v0/events/recover` → 202: how many failed deliveries got a new delivery (D44). Named
 * `RecoverEventsResult` in the document: generators name an operation's response wrapper `<operationId>Response`
 * (oapi-codegen's `RecoverEventsResponse` collided with it and the Go client did not compile).
 */
export const RecoverEventsResponse = z
  .object({
    recovering: z
      .int()
      .min(0)
      .describe('Failed deliveries redelivered by this call (each once, with a new delivery id).'),
  })
  .meta({ id: 'RecoverEventsResult' });
export type RecoverEventsResponse = z.infer<typeof RecoverEventsResponse>;

export const ListEventsQuery = z
  .strictObject({
    ...paginationQueryShape,
    type: EventType.optional().describe('Full event name.'),
    sessionId: SessionId.optional().describe("Only this session's events; another organization's id matches nothing."),
    deliveryStatus: DeliveryStatus.optional().describe(
      'Only events with at least one delivery in this state now (with `endpointId`: a delivery to that endpoint) (D51).',
    ),
    endpointId: WebhookEndpointId.optional().describe(
      'Only events with at least one delivery to this webhook endpoint (D51); an endpoint of another organization or mode matches nothing.',
    ),
    createdAfter: isoTimeFilter('Only events created at or after this ISO-8601 time (D51).'),
    createdBefore: isoTimeFilter(
      'Only events created before this ISO-8601 time (D51); with createdAfter, the window [createdAfter, createdBefore).',
    ),
  })
  .superRefine((query, ctx) => {
    if (query.deliveryStatus === undefined && query.endpointId === undefined) return;
    if (query.page * query.limit <= DELIVERY_SEARCH_MAX) return;
    ctx.addIssue({
      code: 'custom',
      path: ['page'],
      input: query.page,
      message:
        `page × limit must be at most ${DELIVERY_SEARCH_MAX} when filtering by deliveryStatus or endpointId; ` +
        `to reach further, set createdBefore to 1 ms after the last event's createdAt and page again ` +
        `from 1`,
    });
  })
  .meta({ id: 'ListEventsQuery' });
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;
