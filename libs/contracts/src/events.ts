import { z } from 'zod';
import { Pagination, Timestamp, paginationQueryShape } from './common';
import { DeliveryId, EventId, ModeSchema, OrderId, SessionId, WebhookEndpointId, modeOfId } from './ids';
import { Order } from './orders';
import { Refund } from './refunds';
import { CheckoutSession } from './sessions';

/**
 * D30: the session events this service fires, each under the session status that fires it (completed: D28;
 * expired: D21; a cancelled session fires none, D25). Every spelling of a session event's type derives from
 * it: the webhook bodies and the Kafka envelope below, sessions' outbox; the public catalog (EVENT_CATALOG, D49)
 * lists these two with the other types. A session's own callbackUrl receives these and nothing else (D30, D49).
 */
export const SESSION_EVENT_TYPES = {
  completed: 'checkout.session.completed',
  expired: 'checkout.session.expired',
} as const;
/** A session status that fires an event: a key of SESSION_EVENT_TYPES. */
export type SessionEventStatus = keyof typeof SESSION_EVENT_TYPES;
export type SessionEventType = (typeof SESSION_EVENT_TYPES)[SessionEventStatus];

/** Whether a session status fires an event (D30), and so has a type in the catalog. */
export function firesSessionEvent(status: string): status is SessionEventStatus {
  return Object.hasOwn(SESSION_EVENT_TYPES, status);
}

// D49: the events of orders and refunds, for merchants' systems; recorded in the events API.
export const PUBLIC_ORDER_EVENT_TYPES = ['order.created', 'order.updated', 'order.cancelled', 'order.paid'] as const;
export const REFUND_EVENT_TYPES = ['refund.created', 'refund.succeeded', 'refund.failed'] as const;
export type PublicOrderEventType = (typeof PUBLIC_ORDER_EVENT_TYPES)[number];
export type RefundEventType = (typeof REFUND_EVENT_TYPES)[number];
/** The events orders produces for merchants (D49), on TOPICS.orderPublicEvents. */
export const ORDER_PUBLIC_EVENT_TYPES = [...PUBLIC_ORDER_EVENT_TYPES, ...REFUND_EVENT_TYPES] as const;
export type OrderPublicEventType = (typeof ORDER_PUBLIC_EVENT_TYPES)[number];

// ---------------------------------------------------------------------------------------------------------
// Webhook bodies (D30, D49) and the event catalog

const webhookEventShape = {
  id: EventId.describe('Event id; also sent as Idempotency-Key and X-Service-Event-Id. Receivers dedupe on it.'),
  createdAt: Timestamp.describe('When the event fired.'),
};

const sessionWebhookOf = <T extends string>(type: T) =>
  z.object({
    ...webhookEventShape,
    event: z.literal(type),
    session: CheckoutSession.describe('The session at the moment of the event, with its order.'),
  });

export const SessionCompletedWebhook = sessionWebhookOf(SESSION_EVENT_TYPES.completed).meta({
  id: 'SessionCompletedEvent',
  description: "`checkout.session.completed`: the session's order was paid in full (D28).",
});
export const SessionExpiredWebhook = sessionWebhookOf(SESSION_EVENT_TYPES.expired).meta({
  id: 'SessionExpiredEvent',
  description: '`checkout.session.expired`: the session reached expiresAt unpaid (D21).',
});

// Keys in D49's order ({id, event, createdAt, ...}): a parsed body is serialized in its schema's order.
const publicEventId = EventId.describe('Event id. Receivers dedupe on it.');
const publicEventCreatedAt = Timestamp.describe('When the change happened.');

// D49: each public body is declared here once; orders builds them (and parses them on the way out) and the events
// API answers them, and their JSON Schemas (eventBodyJsonSchema) come from these same declarations.
const orderEventOf = <T extends PublicOrderEventType>(type: T, id: string, description: string) =>
  z
    .object({
      id: publicEventId,
      event: z.literal(type),
      createdAt: publicEventCreatedAt,
      order: Order.describe('The order after the change.'),
    })
    .meta({ id, description });
const refundEventOf = <T extends RefundEventType>(type: T, id: string, description: string) =>
  z
    .object({
      id: publicEventId,
      event: z.literal(type),
      createdAt: publicEventCreatedAt,
      refund: Refund.describe('The refund after the change.'),
      order: Order.describe('Its order after the change (amounts.refunded, paymentStatus).'),
    })
    .meta({ id, description });

export const OrderCreatedWebhook = orderEventOf(
  'order.created',
  'OrderCreatedEvent',
  '`order.created`: an order was created, through the API or with a checkout session (D49).',
);
export const OrderUpdatedWebhook = orderEventOf(
  'order.updated',
  'OrderUpdatedEvent',
  '`order.updated`: an order was edited (PATCH), or a payment that did not complete it was received (D28, D49).',
);
export const OrderCancelledWebhook = orderEventOf(
  'order.cancelled',
  'OrderCancelledEvent',
  '`order.cancelled`: an open, unpaid order was cancelled (D49).',
);
export const OrderPaidWebhook = orderEventOf(
  'order.paid',
  'OrderPaidEvent',
  '`order.paid`: a payment brought the order to `paid` or `overpaid`, and it is `completed` (D19, D49).',
);
export const RefundCreatedWebhook = refundEventOf(
  'refund.created',
  'RefundCreatedEvent',
  '`refund.created`: a refund was admitted (D48); in test mode `refund.succeeded` or `refund.failed` follows at once.',
);
export const RefundSucceededWebhook = refundEventOf(
  'refund.succeeded',
  'RefundSucceededEvent',
  '`refund.succeeded`: the money went back; amounts.refunded includes it (D48).',
);
export const RefundFailedWebhook = refundEventOf(
  'refund.failed',
  'RefundFailedEvent',
  '`refund.failed`: the processor refused the refund; its amount is refundable again (D48).',
);

/** The public events orders produces (D49), one body each. */
export const OrderPublicEventBody = z.discriminatedUnion('event', [
  OrderCreatedWebhook,
  OrderUpdatedWebhook,
  OrderCancelledWebhook,
  OrderPaidWebhook,
  RefundCreatedWebhook,
  RefundSucceededWebhook,
  RefundFailedWebhook,
]);
export type OrderPublicEventBody = z.infer<typeof OrderPublicEventBody>;

/** A public event body: an object whose `event` is its type's literal name. */
type EventBody = z.ZodObject<{ event: z.ZodLiteral<string> } & z.ZodRawShape>;

/** One entry of the catalog: a type, what a merchant is told about it, and its body. */
export interface CatalogEntry<B extends EventBody = EventBody> {
  type: B['shape']['event']['value'];
  description: string;
  body: B;
}

function catalogEntry<B extends EventBody>(body: B, description: string): CatalogEntry<B> {
  return { type: body.shape.event.value, description, body };
}

/**
 * D49: every public event type, its description and its body, in one list. Everything else derives from it: the
 * EventType enum, the WebhookEvent union, `GET /v0/event_types`, the OpenAPI document's `webhooks`, the committed
 * JSON Schemas (libs/contracts/schemas/events/, `npm run event-schemas`) and the webhook endpoints' `enabledEvents`.
 * A new type is one entry here; its body is declared once, beside its producer's other contracts.
 */
export const EVENT_CATALOG = [
  catalogEntry(
    SessionCompletedWebhook,
    "A checkout session's order was paid in full (D28); sent to the session's callback URL too (D30).",
  ),
  catalogEntry(
    SessionExpiredWebhook,
    "A checkout session reached its expiresAt unpaid (D21); sent to the session's callback URL too (D30).",
  ),
  catalogEntry(OrderCreatedWebhook, 'An order was created, through the API or with a checkout session (D49).'),
  catalogEntry(
    OrderUpdatedWebhook,
    'An order was edited (PATCH), or a payment that did not complete it was received (D28, D49).',
  ),
  catalogEntry(OrderCancelledWebhook, 'An open, unpaid order was cancelled (D49).'),
  catalogEntry(
    OrderPaidWebhook,
    'A payment brought the order to `paid` or `overpaid`, and it is `completed` (D19, D49).',
  ),
  catalogEntry(
    RefundCreatedWebhook,
    'A refund was admitted (D48); in test mode `refund.succeeded` or `refund.failed` follows at once.',
  ),
  catalogEntry(RefundSucceededWebhook, 'The money went back; amounts.refunded includes it (D48).'),
  catalogEntry(RefundFailedWebhook, 'The processor refused the refund; its amount is refundable again (D48).'),
] as const;

type Catalog = typeof EVENT_CATALOG;
export type EventType = Catalog[number]['type'];
// Generic, so that the mapped type keeps the catalog a tuple (a mapped type over a concrete tuple does not).
type BodiesOf<T extends readonly unknown[]> = { [K in keyof T]: T[K] extends { body: infer B } ? B : never };
type CatalogBodies = BodiesOf<Catalog>;

export const EVENT_TYPES = EVENT_CATALOG.map((entry) => entry.type) as unknown as readonly [EventType, ...EventType[]];
export const EventType = z.enum(EVENT_TYPES).describe('Event name.');

/** The catalog entry of a type. */
export function catalogEntryOf(type: EventType): CatalogEntry {
  return EVENT_CATALOG.find((entry) => entry.type === type) as CatalogEntry;
}

/** Exactly the catalog's bodies; the same object is an Event in the events API. */
export const WebhookEvent = z
  .discriminatedUnion('event', EVENT_CATALOG.map((entry) => entry.body) as unknown as CatalogBodies)
  .meta({ id: 'WebhookEvent', description: 'Webhook body, and an Event in the events API.' });
export type WebhookEvent = z.infer<typeof WebhookEvent>;

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
          `Total number of matching events. Filtered by \`deliveryStatus\` or \`endpointId\`, counted up to ${DELIVERY_SEARCH_MAX}: ${DELIVERY_SEARCH_MAX} means that many or more.`,
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
      'Only this webhook endpoint (D50): its deliveries that ended failed since `since`, and every event since then it is subscribed to and got no delivery of (it was disabled), each sent to it once.',
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
    createdAfter: z.iso
      .datetime({ offset: true })
      .max(40)
      .optional()
      .describe('Only events created at or after this ISO-8601 time (D51).'),
    createdBefore: z.iso
      .datetime({ offset: true })
      .max(40)
      .optional()
      .describe(
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
      message: `page × limit must be at most ${DELIVERY_SEARCH_MAX} when filtering by deliveryStatus or endpointId; to reach further, set createdBefore to 1 ms after the last event's createdAt and page again from 1`,
    });
  })
  .meta({ id: 'ListEventsQuery' });
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

// ---------------------------------------------------------------------------------------------------------
// Kafka envelope on TOPICS.sessionEvents, keyed by sessionId.
//
// The envelope carries the routing facts (tenant, mode, target URL) next to the finished webhook body, so the
// dispatcher never has to call back into sessions. A new shape gets a new version and both stay in the union
// until nothing produces the old one.

const envelopeShape = {
  version: z.literal(1),
  eventId: EventId,
  occurredAt: Timestamp,
  organizationId: z.string().min(1),
  mode: ModeSchema,
  sessionId: SessionId,
  callbackUrl: z
    .string()
    .min(1)
    .nullable()
    .describe('Substituted target URL; null means record, do not deliver (D32).'),
};

export const SessionCompletedEventV1 = z.object({
  ...envelopeShape,
  type: z.literal(SESSION_EVENT_TYPES.completed),
  body: SessionCompletedWebhook,
});
export const SessionExpiredEventV1 = z.object({
  ...envelopeShape,
  type: z.literal(SESSION_EVENT_TYPES.expired),
  body: SessionExpiredWebhook,
});

export const SessionEventV1 = z
  .discriminatedUnion('type', [SessionCompletedEventV1, SessionExpiredEventV1])
  // A producer bug that mixes ids or modes would otherwise reach a merchant; consumers treat it as poison.
  .superRefine((message, ctx) => {
    if (message.body.id !== message.eventId) {
      ctx.addIssue({ code: 'custom', path: ['body', 'id'], message: 'must equal eventId' });
    }
    if (message.body.session.id !== message.sessionId) {
      ctx.addIssue({ code: 'custom', path: ['body', 'session', 'id'], message: 'must equal sessionId' });
    }
    for (const key of ['eventId', 'sessionId'] as const) {
      if (modeOfId(message[key]) !== message.mode) {
        ctx.addIssue({ code: 'custom', path: [key], message: `must be a ${message.mode}-mode id` });
      }
    }
  })
  .meta({ id: 'SessionEventV1' });
export type SessionEventV1 = z.infer<typeof SessionEventV1>;

// ---- Orders' facts on TOPICS.orderEvents (key orderId): produced by orders, consumed by sessions -------------
//
// Every change of an order that a session presents publishes one event carrying the order as orders presents it
// and its revision. Orders writes the event with the change (its outbox), so an event exists
// exactly when the change does. Delivery is at least once and, across a relay's fast path and its sweep, in any
// order: a consumer keeps the snapshot with the highest revision and ignores the rest.

export const ORDER_CANCELLED = 'order.cancelled';
export const ORDER_UPDATED = 'order.updated';
/** A payment was applied; `order.status` says whether it completed the order (D28). */
export const ORDER_PAYMENT_APPLIED = 'order.payment_applied';
/** Its checkout expired: the order takes no more payments (D21). Nothing presented changes but the revision. */
export const ORDER_PAYMENTS_CLOSED = 'order.payments_closed';
/** A refund was admitted (D48): the order's refunds and, if it succeeded at once, amounts.refunded changed. */
export const ORDER_REFUND_CREATED = 'order.refund_created';
/** A pending refund succeeded or failed (D48). */
export const ORDER_REFUND_SETTLED = 'order.refund_settled';
export const ORDER_EVENT_TYPES = [
  ORDER_CANCELLED,
  ORDER_UPDATED,
  ORDER_PAYMENT_APPLIED,
  ORDER_PAYMENTS_CLOSED,
  ORDER_REFUND_CREATED,
  ORDER_REFUND_SETTLED,
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

/**
 * One message on the order events topic. `type` stays a string: consumers acknowledge types they don't know.
 * Every event carries the order and its revision: a consumer keeps its copy from the event alone.
 */
export const OrderEventMessage = z.object({
  /**
   * The message's shape, as on session events: a new shape gets a new version, and consumers keep reading the
   * old ones until nothing produces them (libs/contracts/fixtures/messages holds one of each).
   */
  version: z.literal(1),
  type: z.string(),
  orderId: OrderId,
  organizationId: z.string().min(1),
  mode: ModeSchema,
  occurredAt: z.string(),
  /** Increases with every stored change of the order: of two snapshots, the higher revision is the newer. */
  revision: z.int().min(0),
  /** The order after the change, exactly as orders presents it (GET /v0/orders/:id). */
  order: Order,
});
export type OrderEventMessage = z.infer<typeof OrderEventMessage>;

/**
 * The event of one order change, with the snapshot sessions keeps. `order` is the producer's presentation of
 * the order, parsed here against Order, so a producer bug fails at the source rather than in a consumer.
 */
export function orderChangedEvent(input: {
  type: OrderEventType;
  organizationId: string;
  mode: z.infer<typeof ModeSchema>;
  occurredAt: Date;
  revision: number;
  order: { id: string };
}): OrderEventMessage {
  return OrderEventMessage.parse({
    version: 1,
    type: input.type,
    orderId: input.order.id,
    organizationId: input.organizationId,
    mode: input.mode,
    occurredAt: input.occurredAt.toISOString(),
    revision: input.revision,
    order: input.order,
  });
}

// ---- Orders' public events on TOPICS.orderPublicEvents (key orderId): produced by orders, recorded by the dispatcher
//
// D49: orders writes each public event in the same document write as the change it tells of (its outbox), as it
// writes the internal order event; the dispatcher records each once (by its id) in the events API. The envelope
// carries the routing facts next to the finished body, as a session event does. A new shape gets a new version, and
// both stay in the union until nothing produces the old one.

const OrderPublicEventV1 = z
  .object({
    version: z.literal(1),
    eventId: EventId,
    occurredAt: Timestamp,
    organizationId: z.string().min(1),
    mode: ModeSchema,
    orderId: OrderId,
    type: z.enum(ORDER_PUBLIC_EVENT_TYPES),
    body: OrderPublicEventBody,
  })
  // A producer bug that mixes ids, types or modes would otherwise reach a merchant; consumers treat it as poison.
  .superRefine((message, ctx) => {
    if (message.body.id !== message.eventId)
      ctx.addIssue({ code: 'custom', path: ['body', 'id'], message: 'must equal eventId' });
    if (message.body.event !== message.type)
      ctx.addIssue({ code: 'custom', path: ['body', 'event'], message: 'must equal type' });
    if (message.body.order.id !== message.orderId)
      ctx.addIssue({ code: 'custom', path: ['body', 'order', 'id'], message: 'must equal orderId' });
    if ('refund' in message.body && message.body.refund.orderId !== message.orderId)
      ctx.addIssue({ code: 'custom', path: ['body', 'refund', 'orderId'], message: 'must equal orderId' });
    for (const key of ['eventId', 'orderId'] as const) {
      if (modeOfId(message[key]) !== message.mode)
        ctx.addIssue({ code: 'custom', path: [key], message: `must be a ${message.mode}-mode id` });
    }
  })
  .meta({ id: 'OrderPublicEventV1' });
type OrderPublicEventV1 = z.infer<typeof OrderPublicEventV1>;

/** The public-event message as the dispatcher parses it today: every version still produced. */
export const OrderPublicEventMessage = OrderPublicEventV1;
export type OrderPublicEventMessage = OrderPublicEventV1;

/**
 * One public event of an order change (D49), its body checked against its declaration here, so that a producer
 * bug fails at the source rather than in the dispatcher. `refund` only for refund.* events.
 */
export function orderPublicEvent(input: {
  type: OrderPublicEventType;
  eventId: string;
  organizationId: string;
  mode: z.infer<typeof ModeSchema>;
  occurredAt: Date;
  order: { id: string };
  refund?: unknown;
}): OrderPublicEventMessage {
  const createdAt = input.occurredAt.toISOString();
  return OrderPublicEventMessage.parse({
    version: 1,
    eventId: input.eventId,
    occurredAt: createdAt,
    organizationId: input.organizationId,
    mode: input.mode,
    orderId: input.order.id,
    type: input.type,
    body: {
      id: input.eventId,
      event: input.type,
      createdAt,
      ...(input.refund !== undefined && { refund: input.refund }),
      order: input.order,
    },
  });
}
