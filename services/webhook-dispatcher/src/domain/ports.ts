import type { EventType, Scope } from '@checkout/contracts';
import type { DeliveryDocument } from '../store/delivery.document';
import type { EventDocument } from '../store/event.document';
import type { WebhookEndpointDocument } from '../store/webhook-endpoint.document';

// The ports of the API's use cases (event-log.ts, webhook-endpoints.ts): what they read and write of the stores,
// which implement them (the engine's own are in engine/ports.ts and engine/records.ts).

export interface EventListFilter {
  type?: EventType;
  sessionId?: string;
  /** D51: the event's createdAt in [createdAfter, createdBefore). */
  createdAfter?: Date;
  createdBefore?: Date;
}

/** D51: which deliveries an events list is filtered by (their event's type and time included). */
export interface DeliveryFilter {
  status?: DeliveryDocument['status'];
  endpointId?: string;
  eventType?: DeliveryDocument['eventType'];
  createdAfter?: Date;
  createdBefore?: Date;
}

/**
 * One callback host's attempts as the database sums them (deliveryStatsSince): how many, how many succeeded (a
 * 2xx: D31), and how many took each duration, rounded down to two significant digits (exact below 100 ms), so a
 * host has at most a few hundred duration buckets however many attempts it had.
 */
export interface HostAttemptTotals {
  host: string;
  attempts: number;
  succeeded: number;
  durations: readonly { ms: number; n: number }[];
}

/** A page of a list, with its total, or whether another page follows. */
type Counted<K extends string, T> = { [key in K]: T[] } & { total: number };
type Paged<K extends string, T> = { [key in K]: T[] } & { hasMore: boolean };

/** The events as the events API reads them (store/events.store.ts). */
export interface EventReads {
  getEvent(scope: Scope, id: string): Promise<EventDocument | null>;
  getEvents(scope: Scope, ids: readonly string[]): Promise<Map<string, EventDocument>>;
  listEvents(
    scope: Scope,
    filter: EventListFilter,
    page: number,
    limit: number,
  ): Promise<Counted<'events', EventDocument>>;
  listEventsPage(
    scope: Scope,
    filter: EventListFilter,
    page: number,
    limit: number,
  ): Promise<Paged<'events', EventDocument>>;
}

/** The deliveries as the events API and the endpoints' pages read them (store/deliveries.store.ts). */
export interface DeliveryReads {
  listForEvent(scope: Scope, eventId: string): Promise<DeliveryDocument[]>;
  listForEndpoint(scope: Scope, endpointId: string, page: number, limit: number): Promise<DeliveryDocument[]>;
  listRecentlyFailed(scope: Scope, limit: number): Promise<DeliveryDocument[]>;
  deliveryStatsSince(scope: Scope, from: Date, hosts: number): Promise<HostAttemptTotals[]>;
  eventIdsWithDeliveries(scope: Scope, filter: DeliveryFilter, upTo: number, maxTimeMs: number): Promise<string[]>;
  eventsWithDeliveriesAmong(scope: Scope, eventIds: readonly string[], filter: DeliveryFilter): Promise<Set<string>>;
}

/** A change of one stored endpoint: the next document (null: none) and what the change returns. */
type EndpointChange<R> = (current: WebhookEndpointDocument) => {
  next: WebhookEndpointDocument | null;
  result: R;
};
type NewEndpoint = Omit<WebhookEndpointDocument, 'organizationId' | 'mode' | 'slot'>;

/** The webhook endpoints as their API keeps them (D50, store/webhook-endpoints.store.ts). */
export interface EndpointStore {
  insertInFreeSlot(
    scope: Scope,
    doc: NewEndpoint,
    slots: number,
  ): Promise<{ endpoint: WebhookEndpointDocument; created: boolean } | null>;
  get(scope: Scope, id: string): Promise<WebhookEndpointDocument | null>;
  list(scope: Scope, page: number, limit: number): Promise<Counted<'endpoints', WebhookEndpointDocument>>;
  mutate<R>(
    scope: Scope,
    id: string,
    change: EndpointChange<R>,
  ): Promise<{ doc: WebhookEndpointDocument; result: R } | null>;
  delete(scope: Scope, id: string): Promise<boolean>;
}
