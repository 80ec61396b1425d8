import { SESSION_EVENT_TYPES, type SessionEventStatus } from '@checkout/contracts';
import type { Journey } from './journey-types';
import { header, type LedgerContext, type LedgerRow, type SessionWebhookEvent } from './ledger-types';

/** The rows of the sessions' events and their deliveries: each event once, under one delivery id, none lost. */
export function sessionEventRows(ctx: LedgerContext): LedgerRow[] {
  const receiverOf = new Map<string, Journey['receiver']>(
    ctx.input.journeys.filter((j) => j.sessionId).map((j) => [j.sessionId as string, j.receiver]),
  );
  return [
    ...terminalEventRows(ctx),
    deliveryIdRow(ctx),
    lostEventRow(ctx, receiverOf),
    ...pendingDeliveryRows(ctx, receiverOf),
  ];
}

/**
 * Each completed (expired) session has exactly one completed (expired) event id, counting the ids the events API
 * shows and the ids the receivers saw, and no event of the other kind.
 */
function terminalEventRows({ input, received, example }: LedgerContext): LedgerRow[] {
  const eventIdsBySession = new Map<string, Map<string, Set<string>>>();
  const note = (sessionId: string, type: string, eventId: string) => {
    const byType = eventIdsBySession.get(sessionId) ?? new Map<string, Set<string>>();
    const ids = byType.get(type) ?? new Set<string>();
    ids.add(eventId);
    byType.set(type, ids);
    eventIdsBySession.set(sessionId, byType);
  };
  for (const { event } of input.events) note(event.session.id, event.event, event.id);
  for (const request of received) {
    const body = JSON.parse(request.body) as SessionWebhookEvent;
    note(body.session.id, body.event, body.id);
  }
  // A session that reached a status firing an event has exactly one event of that type and none of the others.
  const terminalCheck = (status: SessionEventStatus) => {
    const type = SESSION_EVENT_TYPES[status];
    const others = Object.values(SESSION_EVENT_TYPES).filter((t) => t !== type);
    let bad = 0;
    for (const session of input.sessions.values()) {
      if (session.status !== status) continue;
      const ids = eventIdsBySession.get(session.id);
      const own = ids?.get(type)?.size ?? 0;
      const contradicting = others.reduce((sum, other) => sum + (ids?.get(other)?.size ?? 0), 0);
      if (own !== 1 || contradicting !== 0) {
        bad++;
        example(
          `${status} sessions without exactly one ${type}`,
          `${session.id}: ${own} ${type}, ${contradicting} of ${others.join(', ')}`,
        );
      }
    }
    return bad;
  };
  const completed = terminalCheck('completed');
  const expired = terminalCheck('expired');
  let eventsOfOpenSessions = 0;
  for (const [sessionId, byType] of eventIdsBySession) {
    const session = input.sessions.get(sessionId);
    if (session && session.status !== 'completed' && session.status !== 'expired' && byType.size > 0) {
      eventsOfOpenSessions++;
      example('events of sessions that are neither completed nor expired', `${sessionId} is ${session.status}`);
    }
  }
  return [
    { label: 'completed sessions without exactly one checkout.session.completed id', value: completed, check: true },
    { label: 'expired sessions without exactly one checkout.session.expired id', value: expired, check: true },
    { label: 'events of sessions neither completed nor expired', value: eventsOfOpenSessions, check: true },
  ];
}

/**
 * One delivery id per delivery: each event has one delivery (one callback URL, no redelivery in the soak), so every
 * request a receiver saw for it, and the events API, must name the same delivery id.
 */
function deliveryIdRow({ input, received, example }: LedgerContext): LedgerRow {
  const deliveryIdsByEvent = new Map<string, Set<string>>();
  const noteDelivery = (eventId: string, deliveryId: string) =>
    deliveryIdsByEvent.set(eventId, (deliveryIdsByEvent.get(eventId) ?? new Set()).add(deliveryId));
  for (const { event, deliveries } of input.events) for (const d of deliveries) noteDelivery(event.id, d.id);
  for (const request of received) {
    const eventId = header(request.headers, 'x-service-event-id');
    const deliveryId = header(request.headers, 'x-service-delivery-id');
    if (eventId && deliveryId) noteDelivery(eventId, deliveryId);
  }
  let manyDeliveryIds = 0;
  for (const [eventId, ids] of deliveryIdsByEvent) {
    if (ids.size > 1) {
      manyDeliveryIds++;
      example('events with more than one delivery id', `${eventId}: ${[...ids].join(', ')}`);
    }
  }
  return { label: 'events whose deliveries used more than one delivery id', value: manyDeliveryIds, check: true };
}

/**
 * Events lost: a terminal session whose event the events API does not have; an event never seen by its receiver;
 * a delivery to a receiver that does answer 2xx (eventually) that ended failed.
 */
function lostEventRow(
  { input, received, example }: LedgerContext,
  receiverOf: ReadonlyMap<string, Journey['receiver']>,
): LedgerRow {
  const apiEventSessions = new Set(input.events.map(({ event }) => `${event.session.id} ${event.event}`));
  const receivedEventIds = new Set(received.map((r) => header(r.headers, 'x-service-event-id')));
  let lost = 0;
  for (const session of input.sessions.values()) {
    if (
      (session.status === 'completed' || session.status === 'expired') &&
      !apiEventSessions.has(`${session.id} checkout.session.${session.status}`)
    ) {
      lost++;
      example('events lost', `${session.id} is ${session.status}; the events API has no such event`);
    }
  }
  for (const { event, deliveries } of input.events) {
    if (!receiverOf.has(event.session.id)) continue;
    if (!receivedEventIds.has(event.id)) {
      lost++;
      example(
        'events lost',
        `${event.id} (${event.event}, ${event.session.id}) never reached its ${receiverOf.get(event.session.id)} receiver; deliveries: ${deliveries.map((d) => `${d.id} ${d.status} ${d.attempts.length} attempts [${d.attempts.map((a) => a.statusCode ?? a.error).join(', ')}]`).join('; ') || 'none'}`,
      );
    } else if (receiverOf.get(event.session.id) !== 'failing' && deliveries.some((d) => d.status === 'failed')) {
      lost++;
      example(
        'events lost',
        `${event.id} to a ${receiverOf.get(event.session.id)} receiver ended failed: ${deliveries.map((d) => `${d.id} ${d.status} [${d.attempts.map((a) => a.statusCode ?? a.error).join(', ')}]`).join('; ')}`,
      );
    }
  }
  return { label: 'events lost', value: lost, check: true };
}

/** Nothing left pending once the drain is over (failed = dead-lettered, which is final). */
function pendingDeliveryRows(
  { input, example }: LedgerContext,
  receiverOf: ReadonlyMap<string, Journey['receiver']>,
): LedgerRow[] {
  const deliveries = input.events.flatMap((e) => e.deliveries);
  const pending = deliveries.filter((d) => d.status === 'pending').length;
  for (const { event, deliveries: ds } of input.events) {
    for (const d of ds.filter((x) => x.status === 'pending')) {
      example(
        'deliveries still pending',
        `${d.id} of ${event.id} (${event.session.id}, ${receiverOf.get(event.session.id) ?? 'unknown'} receiver): ${d.attempts.length} attempts, last ${d.attempts.at(-1)?.error ?? d.attempts.at(-1)?.statusCode ?? 'none'}`,
      );
    }
  }
  return [
    { label: 'webhook deliveries still pending after the drain', value: pending, check: true },
    {
      label: 'webhook deliveries succeeded / failed (dead-lettered)',
      value: `${deliveries.filter((d) => d.status === 'succeeded').length} / ${deliveries.filter((d) => d.status === 'failed').length}`,
      check: false,
    },
  ];
}
