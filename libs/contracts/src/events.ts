import { z } from 'zod';
import { Timestamp } from './common';
import { EventId, ModeSchema, OrderId, SessionId, modeOfId, type Mode } from './ids';
import { Order } from './orders';
import {
  ORDER_PUBLIC_EVENT_TYPES,
  OrderPublicEventBody,
  SESSION_EVENT_TYPES,
  SessionCompletedWebhook,
  SessionExpiredWebhook,
  type OrderPublicEventType,
} from './event-catalog';

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

/**
 * What every public event's envelope holds true (D49, D52): its body's id and type are the envelope's, the body's
 * subject is the one the envelope names (`subject.path` in the body, `subject.id` in the envelope), and its ids are
 * of its mode. A producer bug that mixes them would otherwise reach a merchant; consumers treat it as poison.
 */
export function checkPublicEnvelope(
  message: { eventId: string; type: string; mode: Mode; body: { id: string; event: string } },
  subject: { name: string; id: string; path: readonly [string, string, string] },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: readonly string[], text: string) =>
    ctx.addIssue({ code: 'custom', path: [...path], message: text });
  if (message.body.id !== message.eventId) issue(['body', 'id'], 'must equal eventId');
  if (message.body.event !== message.type) issue(['body', 'event'], 'must equal type');
  const [, key, field] = subject.path;
  const inBody = (message.body as unknown as Record<string, Record<string, unknown> | undefined>)[key]?.[field];
  if (inBody !== subject.id) issue(subject.path, `must equal ${subject.name}`);
  for (const [name, id] of [['eventId', message.eventId] as const, [subject.name, subject.id] as const]) {
    if (modeOfId(id) !== message.mode) issue([name], `must be a ${message.mode}-mode id`);
  }
}

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
  .superRefine((message, ctx) => {
    checkPublicEnvelope(message, { name: 'orderId', id: message.orderId, path: ['body', 'order', 'id'] }, ctx);
    if ('refund' in message.body && message.body.refund.orderId !== message.orderId)
      ctx.addIssue({ code: 'custom', path: ['body', 'refund', 'orderId'], message: 'must equal orderId' });
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
