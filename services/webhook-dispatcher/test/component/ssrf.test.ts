import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type WebhookReceiver } from '@checkout/testing';
import type { EventResponse } from '@checkout/contracts';
import {
  TestProducer,
  buildSessionEvent,
  internalHeaders,
  sessionEventsTopic,
  startDispatcherFixture,
  type DispatcherFixture,
  type RunningDispatcher,
} from './support';

// D33 with the production default: WEBHOOK_ALLOWED_NETWORKS empty. Nothing here may leave the machine: every
// target is refused before a connection is made (loopback receiver, a name resolving to loopback, metadata IP).
/** An IPv4 or IPv6 address literal anywhere in a text. */
const IP_LITERAL = /\b\d{1,3}(?:\.\d{1,3}){3}\b|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}/i;
let fixture: DispatcherFixture;
let receiver: WebhookReceiver;
let dispatcher: RunningDispatcher;
let producer: TestProducer;

beforeAll(async () => {
  fixture = await startDispatcherFixture('ssrf', { WEBHOOK_ALLOWED_NETWORKS: '', WEBHOOK_MAX_ATTEMPTS: '2' });
  ({ receiver, dispatcher, producer } = fixture);
});

afterAll(async () => {
  await fixture?.stop();
});

async function failedDeliveryOf(eventId: string) {
  return eventually(
    async () => {
      const response = await fetch(`${dispatcher.url}/internal/events/${eventId}`, {
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
    ['a loopback receiver', () => receiver.url('/hook')],
    ['a host name that resolves to loopback', () => `http://localhost:${receiver.port}/hook`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private address', () => 'http://10.0.0.5/hook'],
    ['an IPv6 loopback literal', () => `http://[::1]:${receiver.port}/hook`],
  ])(
    'When the callback URL is %s, then every attempt fails with a coarse reason, no address in it, and nothing is sent',
    async (_label, url) => {
      const event = buildSessionEvent({ callbackUrl: url() });
      await producer.sendEvents(sessionEventsTopic(dispatcher.config), [event]);
      const delivery = await failedDeliveryOf(event.eventId);
      expect(delivery.attempts).toHaveLength(2);
      for (const attempt of delivery.attempts) {
        expect(attempt.statusCode).toBeNull();
        expect(attempt.error).toBe('the destination address is not allowed (private, loopback or reserved network)');
        expect(attempt.error).not.toMatch(IP_LITERAL);
      }
      expect(receiver.deliveries()).toHaveLength(0);
    },
  );
});
