import { describe, expect, it } from 'vitest';
import type { ReceivedRequest } from '@checkout/testing';
import { ENDPOINT_EVENTS_LOST, ENDPOINT_EVENTS_MISDIRECTED, endpointRows } from './endpoint-deliveries';

const request = (eventId: string, path: string): ReceivedRequest => ({
  method: 'POST',
  path,
  headers: { 'x-service-event-id': eventId },
  body: '{}',
  receivedAt: new Date(0),
});
const value = (rows: ReturnType<typeof endpointRows>['rows'], label: string) =>
  rows.find((r) => r.label === label)?.value;

describe('endpointRows (D49, D50)', () => {
  const owed = [
    { id: 'evt_1', type: 'order.created', path: '/m0' },
    { id: 'evt_2', type: 'refund.succeeded', path: '/m1' },
  ];

  it('When every owed event reached its own merchant, retried or not, then both checks hold', () => {
    const { rows, examples } = endpointRows(owed, [
      request('evt_1', '/m0'),
      request('evt_1', '/m0'),
      request('evt_2', '/m1'),
    ]);
    expect(value(rows, ENDPOINT_EVENTS_LOST)).toBe(0);
    expect(value(rows, ENDPOINT_EVENTS_MISDIRECTED)).toBe(0);
    expect(examples).toEqual([]);
  });

  it("When an event never arrived, or arrived at another merchant's endpoint, then each is counted and named", () => {
    const { rows, examples } = endpointRows(owed, [request('evt_2', '/m0')]);
    expect(value(rows, ENDPOINT_EVENTS_LOST)).toBe(2);
    expect(value(rows, ENDPOINT_EVENTS_MISDIRECTED)).toBe(1);
    expect(examples).toContain(`${ENDPOINT_EVENTS_MISDIRECTED}: evt_2 at /m0`);
    expect(examples).toContain(`${ENDPOINT_EVENTS_LOST}: evt_1 (order.created) owed at /m0`);
  });
});
