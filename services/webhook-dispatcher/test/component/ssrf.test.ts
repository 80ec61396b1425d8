import { describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import type { EventResponse } from '@checkout/contracts';
import { buildSessionEvent, internalHeaders, sessionEventsTopic, useDispatcherFixture } from './support';

// D33 with the production default: WEBHOOK_ALLOWED_NETWORKS empty. Nothing here may leave the machine: every
// target is refused before a connection is made (loopback fixture.receiver, a name resolving to loopback, metadata IP).
/** An IPv4 or IPv6 address literal anywhere in a text. */
const IP_LITERAL = /\b\d{1,3}(?:\.\d{1,3}){3}\b|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}/i;

const fixture = useDispatcherFixture('ssrf', { WEBHOOK_ALLOWED_NETWORKS: '', WEBHOOK_MAX_ATTEMPTS: '2' });

async function failedDeliveryOf(eventId: string) {
  return eventually(
    async () => {
      const response = await fetch(`${fixture.dispatcher.url}/internal/events/${eventId}`, {
        headers: internalHeaders({ organizationId: 'org_test_dispatcher', mode: 'test' }),
      });
      const delivery = ((await response.json()) as EventResponse).deliveries[0];
      return delivery?.status === 'failed' ? delivery : undefined;
    },
    { deadlineMs: 15_000, description: 'the refused delivery to fail' },
  );
}

describe('Internal targets are refused (D33)', () => {
  // The attempt is shown to the merchant, so it gives a coarse reason and never the address the URL led
  // to (a name's DNS answer would map the cluster's network for anyone with a test key).
  it.each([
    ['a loopback receiver', () => fixture.receiver.url('/hook')],
    ['a host name that resolves to loopback', () => `http://localhost:${fixture.receiver.port}/hook`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private address', () => 'http://10.0.0.5/hook'],
    ['an IPv6 loopback literal', () => `http://[::1]:${fixture.receiver.port}/hook`],
  ])(
    'When the callback URL is %s, then every attempt fails with a coarse reason, no address in it, and nothing is sent',
    async (_label, url) => {
      const event = buildSessionEvent({ callbackUrl: url() });
      await fixture.producer.sendEvents(sessionEventsTopic(fixture.dispatcher.config), [event]);
      const delivery = await failedDeliveryOf(event.eventId);
      expect(delivery.attempts).toHaveLength(2);
      for (const attempt of delivery.attempts) {
        expect(attempt.statusCode).toBeNull();
        expect(attempt.error).toBe(
          'the destination is not reachable: its name does not resolve, or its address is private, loopback or reserved',
        );
        expect(attempt.error).not.toMatch(IP_LITERAL);
      }
      expect(fixture.receiver.deliveries()).toHaveLength(0);
    },
  );
});
