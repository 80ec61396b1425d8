// The webhooks bench's traffic: session events produced onto the topic (at once or paced), endpoints registered
// with the dispatcher, and the latencies its receivers saw.
import { buildSessionEvent, type WebhookReceiver } from '@checkout/testing';
import type { SessionEventV1 } from '@checkout/contracts';
import type { EventProducer } from '@checkout/kafka';
import { request } from 'undici';

export function sessionEvent(
  callbackUrl: string,
  type: SessionEventV1['type'] = 'checkout.session.completed',
): SessionEventV1 {
  return buildSessionEvent({ callbackUrl, organizationId: 'org_bench', type });
}

/** ms from produce (acknowledged by the broker) to arrival, per event id. */
export function latencies(
  receivers: readonly WebhookReceiver[],
  producedAt: Map<string, number>,
  path: string,
): number[] {
  const out: number[] = [];
  for (const receiver of receivers) {
    for (const r of receiver.deliveries(path)) {
      const sent = producedAt.get(String(r.headers['x-service-event-id']));
      if (sent !== undefined) out.push(r.receivedAt.getTime() - sent);
    }
  }
  return out.sort((a, b) => a - b);
}

export async function waitUntil(condition: () => boolean, deadlineMs: number): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

export async function produce(
  producer: EventProducer,
  topic: string,
  events: readonly SessionEventV1[],
): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    await producer.send(events.slice(i, i + 500).map((e) => ({ topic, key: e.sessionId, value: JSON.stringify(e) })));
  }
}

/** Produces `rate` events/s for `seconds` to the given URLs (round robin, every 10 ms), recording produce-ack times. */
export async function paced(
  producer: EventProducer,
  topic: string,
  urls: readonly string[],
  rate: number,
  seconds: number,
  producedAt: Map<string, number>,
  make: (url: string) => SessionEventV1 = sessionEvent,
): Promise<SessionEventV1[]> {
  const all: SessionEventV1[] = [];
  const tick = 10;
  const started = Date.now();
  const end = started + seconds * 1000;
  let i = 0;
  while (Date.now() < end) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate) - all.length;
    if (due > 0) {
      const batch = Array.from({ length: due }, () => make(urls[i++ % urls.length] as string));
      await producer.send(batch.map((e) => ({ topic, key: e.sessionId, value: JSON.stringify(e) })));
      const acked = Date.now();
      for (const e of batch) producedAt.set(e.eventId, acked);
      all.push(...batch);
    }
    await new Promise((resolve) => setTimeout(resolve, tick));
  }
  return all;
}

/** Registers a webhook endpoint subscribed to every event type (D50) through the dispatcher's internal API. */
export async function registerEndpoint(
  dispatcherUrl: string,
  token: string,
  scope: { organizationId: string; mode: 'test' | 'live' },
  url: string,
): Promise<string> {
  const response = await request(`${dispatcherUrl}/internal/webhook-endpoints`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-internal-token': token,
      'x-organization-id': scope.organizationId,
      'x-mode': scope.mode,
    },
    body: JSON.stringify({ url, enabledEvents: ['*'] }),
  });
  const body = (await response.body.json()) as { endpoint?: { id: string } };
  if (response.statusCode !== 201 || !body.endpoint)
    throw new Error(`endpoint registration answered ${response.statusCode}`);
  return body.endpoint.id;
}

export const endpointEvent = (organizationId: string) => () =>
  buildSessionEvent({ callbackUrl: null, organizationId, mode: 'live' });
