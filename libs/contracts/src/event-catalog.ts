import { z } from 'zod';
import { Timestamp } from './common';
import { EventId } from './ids';
import { Order } from './orders';
import { Refund } from './refunds';
import { Report } from './reports';
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
/** D52: a report run finished; orders produces them on TOPICS.reportEvents. */
export const REPORT_EVENT_TYPES = ['report.succeeded', 'report.failed'] as const;
export type ReportEventType = (typeof REPORT_EVENT_TYPES)[number];

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

const reportEventOf = <T extends ReportEventType>(type: T, id: string, description: string) =>
  z
    .object({
      id: publicEventId,
      event: z.literal(type),
      createdAt: publicEventCreatedAt,
      report: Report.describe('The report as it finished.'),
    })
    .meta({ id, description });

export const ReportSucceededWebhook = reportEventOf(
  'report.succeeded',
  'ReportSucceededEvent',
  '`report.succeeded`: a report run finished; its file is at `report.fileUrl` for 30 days (D52).',
);
export const ReportFailedWebhook = reportEventOf(
  'report.failed',
  'ReportFailedEvent',
  '`report.failed`: a report run could not be built; `report.failureReason` says why (D52).',
);

/** The report events (D52), one body each. */
export const ReportPublicEventBody = z.discriminatedUnion('event', [ReportSucceededWebhook, ReportFailedWebhook]);
export type ReportPublicEventBody = z.infer<typeof ReportPublicEventBody>;

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
  catalogEntry(ReportSucceededWebhook, 'A report run finished; its CSV is at `report.fileUrl` for 30 days (D52).'),
  catalogEntry(ReportFailedWebhook, 'A report run could not be built; `report.failureReason` says why (D52).'),
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
