import type { Scope } from '@checkout/mongo';
import { DELIVERY_SEARCH_MAX, type DeliveryStatus, type EventType } from '@checkout/contracts';
import type { EventDocument } from '../store/event.document';
import type { DeliveryFilter, DeliveryReads, EventReads } from './ports';
import type { DeliveryDocument } from '../store/delivery.document';
import { DELIVERY_STATS_HOSTS, DELIVERY_STATS_WINDOW_MS, deliveryStats, type HostStats } from './delivery-stats';

/** Events a session can have: more is a producer bug, and a page of them is read in memory. */
const SESSION_EVENTS_MAX = 1_000;

/** The filters of `GET /v0/events` (D34, D51). */
export interface EventLogFilter {
  type?: EventType;
  sessionId?: string;
  deliveryStatus?: DeliveryStatus;
  endpointId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface EventLogPage {
  events: EventDocument[];
  /** Absent when the caller did not ask for it (the dashboard pages on "next" alone). */
  total?: number;
  hasMore: boolean;
}

/**
 * The delivery log (D34, D51): events newest first, filtered by their own fields or by their deliveries'. Filters on
 * events read the events collection; `deliveryStatus` and `endpointId` read the deliveries (an event is listed when
 * at least one of its deliveries matches, to that endpoint when one is named) and then the page's events. Every read
 * goes through an index declared for it (store/indexes.ts).
 */
export class EventLog {
  constructor(
    private readonly events: EventReads,
    private readonly deliveries: DeliveryReads,
    /** The database's deadline for one delivery-filtered walk: under the gateway's upstream timeout. */
    private readonly searchMaxTimeMs: number,
  ) {}

  async page(
    scope: Scope,
    filter: EventLogFilter,
    page: number,
    limit: number,
    withTotal: boolean,
  ): Promise<EventLogPage> {
    const { deliveryStatus, endpointId, ...onEvents } = filter;
    if (deliveryStatus === undefined && endpointId === undefined) {
      if (!withTotal) return this.events.listEventsPage(scope, onEvents, page, limit);
      const { events, total } = await this.events.listEvents(scope, onEvents, page, limit);
      return { events, total, hasMore: page * limit < total };
    }
    const byDelivery: DeliveryFilter = {
      ...(deliveryStatus !== undefined && { status: deliveryStatus }),
      ...(endpointId !== undefined && { endpointId }),
      ...(filter.type !== undefined && { eventType: filter.type }),
      ...(filter.createdAfter !== undefined && { createdAfter: filter.createdAfter }),
      ...(filter.createdBefore !== undefined && { createdBefore: filter.createdBefore }),
    };
    if (filter.sessionId !== undefined) return this.sessionPage(scope, onEvents, byDelivery, page, limit);
    // One bounded walk (DELIVERY_SEARCH_MAX): to the page and one more without the total; to the cap with it, so
    // that the total counts at most that many events (a capped total says "that many or more").
    const end = page * limit;
    const upTo = withTotal ? Math.max(end + 1, DELIVERY_SEARCH_MAX) : end + 1;
    const ids = await this.deliveries.eventIdsWithDeliveries(scope, byDelivery, upTo, this.searchMaxTimeMs);
    const pageIds = ids.slice(end - limit, end);
    const found = await this.events.getEvents(scope, pageIds);
    const events = pageIds.flatMap((id) => found.get(id) ?? []);
    return {
      events,
      ...(withTotal && { total: Math.min(ids.length, DELIVERY_SEARCH_MAX) }),
      hasMore: ids.length > end,
    };
  }

  /** One event with every delivery of it (D34's GET /v0/events/:id); null when this scope has no such event. */
  async eventWithDeliveries(
    scope: Scope,
    eventId: string,
  ): Promise<{ event: EventDocument; deliveries: DeliveryDocument[] } | null> {
    const event = await this.events.getEvent(scope, eventId);
    if (!event) return null;
    return { event, deliveries: await this.deliveries.listForEvent(scope, eventId) };
  }

  /** D47's per-host attempt figures over the DELIVERY_STATS_WINDOW_MS before `now`, and where that window starts. */
  async hostStats(scope: Scope, now: Date): Promise<{ from: Date; hosts: HostStats[] }> {
    const from = new Date(now.getTime() - DELIVERY_STATS_WINDOW_MS);
    return { from, hosts: deliveryStats(await this.deliveries.deliveryStatsSince(scope, from, DELIVERY_STATS_HOSTS)) };
  }

  /** D47's newest failed deliveries, at most `limit`. */
  recentlyFailed(scope: Scope, limit: number): Promise<DeliveryDocument[]> {
    return this.deliveries.listRecentlyFailed(scope, limit);
  }

  /** A session's few events, those with a matching delivery kept. */
  private async sessionPage(
    scope: Scope,
    onEvents: Omit<EventLogFilter, 'deliveryStatus' | 'endpointId'>,
    byDelivery: DeliveryFilter,
    page: number,
    limit: number,
  ): Promise<EventLogPage> {
    const { events: all } = await this.events.listEvents(scope, onEvents, 1, SESSION_EVENTS_MAX);
    const matching = await this.deliveries.eventsWithDeliveriesAmong(
      scope,
      all.map((event) => event._id),
      byDelivery,
    );
    const kept = all.filter((event) => matching.has(event._id));
    const events = kept.slice((page - 1) * limit, page * limit);
    return { events, total: kept.length, hasMore: page * limit < kept.length };
  }
}
