import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandCounter } from '@checkout/mongo/testing';
import { eventually, metricValue } from '@checkout/testing';
import type { EventResponse, SessionEventV1 } from '@checkout/contracts';
import {
  buildSessionEvent,
  internalHeaders,
  sessionEventsTopic,
  startDispatcherWithProducer,
  type DispatcherWithProducer,
} from './support';

// The database round trips of a successful first attempt, counted with the driver's command
// monitoring (counts, never times). A batch of events is recorded with one insert of the events and one of their
// deliveries (pending, held by this process), whatever its size, beside one read of the webhook endpoints of the
// merchants in it (D50: fan-out reads them fresh; none here), and what they made is counted against the budgets by one
// update for every tenant (one for the events' insert and one for the deliveries', or both in one when they meet
// in the usage's group commit); each attempt's outcome is then recorded by an
// update shared with the outcomes finishing alongside (group commit). Nothing else is read or written: no claim,
// no re-read of the delivery or the event. (The one attempt path traded the one write per batch that storing a
// delivery only with its first attempt saved for one attempt path: the delivery is now stored before it is
// attempted.)

const EVENTS = 200;

/**
 * Holds every request until `EVENTS` have arrived, then answers them all 200: every first attempt is in flight before
 * any result is recorded.
 */
function startGatedReceiver(): Promise<{ server: Server; url: string; arrived: () => number; release: () => void }> {
  const held: ServerResponse[] = [];
  let arrivedCount = 0;
  let released = false;
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      arrivedCount += 1;
      if (released) answer(res);
      else held.push(res);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        arrived: () => arrivedCount,
        release: () => {
          released = true;
          for (const res of held.splice(0)) answer(res);
        },
      }),
    ),
  );
}

const counter = new CommandCounter();
let started: DispatcherWithProducer | undefined;
let dispatcher: DispatcherWithProducer['dispatcher'];
let producer: DispatcherWithProducer['producer'];
let receiver: Awaited<ReturnType<typeof startGatedReceiver>>;

beforeAll(async () => {
  receiver = await startGatedReceiver();
  started = await startDispatcherWithProducer(
    'commands',
    {
      // One partition, so the burst is one fetched batch; every attempt in flight at once (this one merchant may take
      // every slot: no share held back for others); no sweeps in the count.
      SESSION_EVENTS_PARTITIONS: '1',
      WEBHOOK_MAX_CONCURRENCY_PER_HOST: String(EVENTS),
      // Its one host is one address too, with a cap of its own.
      WEBHOOK_MAX_CONCURRENCY_PER_ADDRESS: String(EVENTS),
      WEBHOOK_MAX_IN_FLIGHT: String(EVENTS),
      WEBHOOK_ORGANIZATION_SHARE: '1',
      WEBHOOK_LIVE_RESERVED_SHARE: '0',
      SWEEPERS_ENABLED: 'false',
      // The hold must outlive the burst's start on a busy machine: an attempt that starts after its hold's end (minus
      // the timeout) claims the delivery again, a path of its own with its own commands (attempts.ts, `take`).
      WEBHOOK_CLAIM_TTL_MS: '60000',
    },
    { commandCounter: counter },
  );
  ({ dispatcher, producer } = started);
});

afterAll(async () => {
  await started?.stop();
  await new Promise((resolve) => receiver?.server.close(resolve));
});

function succeeded(): Promise<number> {
  return metricValue(dispatcher.url, 'webhook_deliveries_total', { outcome: 'succeeded' });
}

describe('Database commands per delivery', () => {
  it(`When ${EVENTS} events arrive in one batch and all succeed, then the events and their deliveries take exactly 2 commands and one read of the endpoints, and each outcome at most one shared update`, async () => {
    const events: SessionEventV1[] = Array.from({ length: EVENTS }, () =>
      buildSessionEvent({ callbackUrl: receiver.url }),
    );

    const recording = await counter.during(async () => {
      await producer.sendEvents(sessionEventsTopic(dispatcher.config), events);
      await eventually(() => receiver.arrived() === EVENTS, {
        deadlineMs: 30_000,
        description: `all ${EVENTS} first attempts in flight`,
      });
    });
    // One insertMany of the events, one of their deliveries, one find of the merchants' webhook endpoints (D50), and
    // at most two updates of the budgets' counts, whatever the number of events; the first attempts need no claim and
    // no delivery read.
    const { update: usageUpdates = 0, ...recorded } = recording.commands;
    expect(recorded).toEqual({ insert: 2, find: 1 });
    expect(usageUpdates).toBeGreaterThanOrEqual(1);
    expect(usageUpdates).toBeLessThanOrEqual(2);

    const results = await counter.during(async () => {
      receiver.release();
      await eventually(async () => (await succeeded()) === EVENTS, {
        deadlineMs: 30_000,
        description: 'every success recorded',
      });
    });
    // Only updates recording the outcomes, never more than one command per delivery (group commit shares them).
    expect(
      Object.keys(results.commands),
      JSON.stringify({ recording: recording.commands, results: results.commands }),
    ).toEqual(['update']);
    expect(results.total).toBeGreaterThanOrEqual(1);
    expect(results.total).toBeLessThanOrEqual(EVENTS);
    const perDelivery = (recording.total + results.total) / EVENTS;
    expect(perDelivery).toBeLessThanOrEqual(2);

    // Every attempt is visible in the events API (D34) with the one delivery id the receiver saw.
    const sample = events[EVENTS - 1] as SessionEventV1;
    const detail = (await (
      await fetch(`${dispatcher.url}/internal/events/${sample.eventId}`, {
        headers: internalHeaders({ organizationId: sample.organizationId, mode: sample.mode }),
      })
    ).json()) as EventResponse;
    expect(detail.deliveries).toHaveLength(1);
    expect(detail.deliveries[0]).toMatchObject({
      status: 'succeeded',
      attempts: [{ attempt: 1, statusCode: 200, error: null }],
    });
  });
});
