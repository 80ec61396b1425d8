import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { HANGING_STAYS_OPEN, buildSessionEvent, sessionEventsTopic, useDispatcherFixture } from './support';

// Names of a merchant's choosing that all resolve to one victim share the victim's cap. The per-host cap keys on the
// URL's host:port, so each name used to get its own slots: two names, twice the victim's share, sixteen names
// sixteen times. Here two names resolve to one hanging receiver; the host cap would let 2 attempts per name hang.

const NAMES = ['a.victim.test', 'b.victim.test'];

/** The cluster's DNS as an attacker would set it up: every name of theirs answers the victim's address. */
const resolve = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
  if (NAMES.includes(hostname))
    return queueMicrotask(() => callback(null, [{ address: '127.0.0.1', family: 4 }] satisfies LookupAddress[]));
  return (dnsLookup as (...args: unknown[]) => void)(hostname, options, callback);
}) as unknown as typeof dnsLookup;

let victim: WebhookReceiver;
const fixture = useDispatcherFixture(
  'address_cap',
  {
    SESSION_EVENTS_PARTITIONS: '1',
    WEBHOOK_MAX_CONCURRENCY_PER_HOST: '2',
    WEBHOOK_MAX_CONCURRENCY_PER_ADDRESS: '2',
    ...HANGING_STAYS_OPEN,
  },
  { resolve },
);

beforeAll(async () => {
  victim = await startWebhookReceiver();
  victim.answer('/hook', ANSWER.hang);
});

// Before the fixture's stop: the hanging attempts end with the victim.
afterAll(async () => {
  await victim.close();
});

describe('The per-host cap on the resolved address as well as the name', () => {
  it('When two names resolve to one address, then their attempts together hold the address cap (2), not the cap of each name (4), while another address is delivered to', async () => {
    const { receiver, producer, dispatcher } = fixture;
    const topic = sessionEventsTopic(dispatcher.config);
    const hostile = NAMES.flatMap((name) =>
      Array.from({ length: 3 }, () =>
        buildSessionEvent({
          organizationId: 'org_reflector',
          mode: 'test',
          callbackUrl: `http://${name}:${victim.port}/hook`,
        }),
      ),
    );
    await producer.sendEvents(topic, hostile);
    await eventually(() => victim.deliveries('/hook').length >= 2, {
      deadlineMs: 20_000,
      description: "the reflector's attempts reach the victim",
    });

    const other = buildSessionEvent({ organizationId: 'org_other', mode: 'test', callbackUrl: receiver.url('/other') });
    await producer.sendEvents(topic, [other]);
    await eventually(() => receiver.deliveries('/other').length === 1, {
      deadlineMs: 15_000,
      description: "another merchant's webhook delivered",
    });
    // The two names together never past their address's cap: each name alone would have let 2 hang.
    expect(victim.deliveries('/hook')).toHaveLength(2);
  });
});
