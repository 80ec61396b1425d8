import type { ReceivedRequest } from '@checkout/testing';
import { header, type LedgerRow } from './ledger-types';

// D49, D50: each merchant's test-mode endpoint (start.ts) must get every order and refund event of its own
// organization and mode, and none of another's.

/** A test-mode order or refund event the events API holds, and the endpoint path of the merchant it belongs to. */
export interface OwedEvent {
  id: string;
  type: string;
  path: string;
}

export const ENDPOINT_EVENTS_LOST = "test-mode order and refund events that never reached their merchant's endpoint";
export const ENDPOINT_EVENTS_MISDIRECTED = "order and refund events delivered to another merchant's endpoint";

/** The two checks, and an example of each miss (the first five). */
export function endpointRows(
  owed: readonly OwedEvent[],
  received: readonly ReceivedRequest[],
): { rows: LedgerRow[]; examples: string[] } {
  const pathsOf = new Map<string, Set<string>>();
  for (const request of received) {
    const eventId = header(request.headers, 'x-service-event-id');
    if (eventId) pathsOf.set(eventId, (pathsOf.get(eventId) ?? new Set()).add(request.path));
  }
  const owner = new Map(owed.map((event) => [event.id, event.path]));
  const lost = owed.filter((event) => !pathsOf.get(event.id)?.has(event.path));
  const misdirected = [...pathsOf].filter(([id, paths]) => [...paths].some((path) => path !== owner.get(id)));
  return {
    rows: [
      { label: ENDPOINT_EVENTS_LOST, value: lost.length, check: true },
      { label: ENDPOINT_EVENTS_MISDIRECTED, value: misdirected.length, check: true },
    ],
    examples: [
      ...lost.slice(0, 5).map((e) => `${ENDPOINT_EVENTS_LOST}: ${e.id} (${e.type}) owed at ${e.path}`),
      ...misdirected
        .slice(0, 5)
        .map(([id, paths]) => `${ENDPOINT_EVENTS_MISDIRECTED}: ${id} at ${[...paths].join(', ')}`),
    ],
  };
}
