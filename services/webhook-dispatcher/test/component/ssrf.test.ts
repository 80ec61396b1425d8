import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type WebhookReceiver } from '@checkout/testing';
import type { EventResponse } from '@checkout/contracts';
import { TestProducer, buildSessionEvent, internalHeaders, sessionEventsTopic, startDispatcherFixture, type DispatcherFixture, type RunningDispatcher } from './support';

// D33 with the production default: WEBHOOK_ALLOWED_NETWORKS empty. Nothing here may leave the machine: every
// target is refused before a connection is made (loopback receiver, a name resolving to loopback, metadata IP).
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
  return eventually(async () => {
    const response = await fetch(`${dispatcher.url}/internal/events/${eventId}`, { headers: internalHeaders({ organizationId: 'org_test_dispatcher', mode: 'test' }) });
    const delivery = ((await response.json()) as EventResponse).deliveries[0];
    return delivery?.status === 'failed' ? delivery : undefined;
  }, { deadlineMs: 15_000, description: 'the refused delivery to fail' });
}

describe('Internal targets are refused (D33)', () => {
  it.each([
    ['a loopback receiver', () => receiver.url('/hook'), /^refused: 127\.0\.0\.1 is a loopback address$/],
    ['a host name that resolves to loopback', () => `http://localhost:${receiver.port}/hook`, /^refused: (127\.0\.0\.1|::1) is a loopback address$/],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', /^refused: 169\.254\.169\.254 is a link-local address \(cloud metadata\)$/],
    ['a private address', () => 'http://10.0.0.5/hook', /^refused: 10\.0\.0\.5 is a private address$/],
    ['an IPv6 loopback literal', () => `http://[::1]:${receiver.port}/hook`, /^refused: ::1 is a loopback address$/],
  ])('When the callback URL is %s, then every attempt fails with the reason and nothing is sent', async (_label, url, reason) => {
    const event = buildSessionEvent({ callbackUrl: url() });
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [event]);
    const delivery = await failedDeliveryOf(event.eventId);
    expect(delivery.attempts).toHaveLength(2);
    for (const attempt of delivery.attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toMatch(reason);
    }
    expect(receiver.deliveries()).toHaveLength(0);
  });
});
