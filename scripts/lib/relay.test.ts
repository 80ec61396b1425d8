import { describe, expect, it } from 'vitest';
import { Checkout } from '@checkout/sdk';
import { checkWebhookSignature, type EventType } from '@checkout/contracts';
import { Relay } from './relay';

// The relay's choices (what is new, in which order, with which headers) against a scripted events API: the
// SDK is given a fetch that answers like the gateway, and the local endpoint is a recording fetch.

interface FakeEvent {
  id: string;
  event: EventType;
  createdAt: string;
  session: { id: string; callbackUrl?: string };
}

function harness(start: Date) {
  const events: FakeEvent[] = [];
  const deliveries = new Map<string, string>();
  const api: typeof fetch = async (input) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.pathname === '/v0/events') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const limit = Number(url.searchParams.get('limit') ?? '20');
      const newestFirst = [...events].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      const slice = newestFirst.slice((page - 1) * limit, page * limit);
      return Response.json({
        events: slice,
        pagination: { page, limit, total: events.length, hasMore: page * limit < events.length },
      });
    }
    const id = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    const event = events.find((e) => e.id === id);
    const delivery = deliveries.get(id);
    return Response.json({
      event,
      deliveries: delivery
        ? [{ id: delivery, url: 'https://merchant.example/hooks', status: 'succeeded', attempts: [] }]
        : [],
    });
  };
  const forwarded: { headers: Record<string, string>; body: string }[] = [];
  const local: typeof fetch = async (_input, init) => {
    forwarded.push({
      headers: init?.headers as Record<string, string>,
      body: typeof init?.body === 'string' ? init.body : '',
    });
    return new Response('ok', { status: 202 });
  };
  let now = start;
  const lines: string[] = [];
  const add = (id: string, secondsAfterStart: number, delivery?: string, callbackUrl?: string) => {
    events.push({
      id,
      event: 'checkout.session.completed',
      createdAt: new Date(start.getTime() + secondsAfterStart * 1000).toISOString(),
      session: { id: `cs_test_${id}`, ...(callbackUrl && { callbackUrl }) },
    });
    if (delivery) deliveries.set(id, delivery);
  };
  const relay = (secret?: string) =>
    new Relay({
      client: new Checkout('sk_test_x', { baseUrl: 'http://api.invalid', fetch: api }),
      forwardTo: 'http://localhost:3000/webhooks',
      secret,
      print: (l) => lines.push(l),
      clock: () => now,
      fetch: local,
    });
  return {
    add,
    relay,
    forwarded,
    lines,
    deliver: (id: string, delivery: string) => deliveries.set(id, delivery),
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

describe('Relay (D45)', () => {
  const start = new Date('2026-11-23T10:00:00.000Z');

  it('When events existed before it started, then only events recorded afterwards are forwarded, oldest first, each once', async () => {
    const h = harness(start);
    h.add('evt_test_old', -5);
    const relay = h.relay();
    await relay.prime();
    h.add('evt_test_b', 2);
    h.add('evt_test_a', 1);
    await relay.poll();
    await relay.poll();
    expect(h.forwarded.map((f) => JSON.parse(f.body).id)).toEqual(['evt_test_a', 'evt_test_b']);
    expect(h.lines).toHaveLength(2);
    expect(h.lines[0]).toMatch(/^2026-11-23T10:00:00\.000Z\s+checkout\.session\.completed\s+evt_test_a\s+→ 202$/);
  });

  it('When more new events arrive than one page holds, then every one of them is forwarded', async () => {
    const h = harness(start);
    const relay = h.relay();
    await relay.prime();
    for (let i = 0; i < 130; i += 1) h.add(`evt_test_${String(i).padStart(3, '0')}`, 1 + i / 1000);
    const results = await relay.poll();
    expect(results).toHaveLength(130);
  });

  it('When the event had a delivery, then its delivery id and the D2 headers are sent; with a secret the request is signed (D35)', async () => {
    const h = harness(start);
    const secret = 'whsec_c2VjcmV0LWtleS1ieXRlcw==';
    const relay = h.relay(secret);
    await relay.prime();
    h.add('evt_test_signed', 1, 'dlv_test_real');
    h.add('evt_test_nodelivery', 2);
    await relay.poll();
    const [signed, unsigned] = h.forwarded;
    expect(signed?.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': 'evt_test_signed',
      'x-service-event-id': 'evt_test_signed',
      'x-service-delivery-id': 'dlv_test_real',
      'x-service-event-type': 'checkout.session.completed',
      'user-agent': 'Service-Webhooks/1.0',
    });
    const check = checkWebhookSignature({
      secret,
      body: signed?.body ?? '',
      id: signed?.headers['webhook-id'],
      timestamp: signed?.headers['webhook-timestamp'],
      signature: signed?.headers['webhook-signature'],
      nowSeconds: start.getTime() / 1000,
    });
    expect(check).toEqual({ ok: true });
    expect(unsigned?.headers['x-service-delivery-id']).toMatch(/^dlv_test_[0-9A-Za-z]{24}$/);
  });

  it('When no secret is given, then nothing is signed, as an unsigned delivery', async () => {
    const h = harness(start);
    const relay = h.relay();
    await relay.prime();
    h.add('evt_test_plain', 1);
    await relay.poll();
    expect(Object.keys(h.forwarded[0]?.headers ?? {})).not.toContain('webhook-signature');
  });

  it('When an event with a callback URL is listed before its delivery is stored, then it waits for that delivery id, and what is newer waits behind it', async () => {
    const h = harness(start);
    const relay = h.relay();
    await relay.prime();
    h.add('evt_test_attempting', 1, undefined, 'https://merchant.example/hooks');
    h.add('evt_test_newer', 2);
    h.advance(2_000);
    expect(await relay.poll()).toEqual([]);
    h.deliver('evt_test_attempting', 'dlv_test_first_attempt');
    await relay.poll();
    expect(h.forwarded.map((f) => [JSON.parse(f.body).id, f.headers['x-service-delivery-id']])).toEqual([
      ['evt_test_attempting', 'dlv_test_first_attempt'],
      ['evt_test_newer', expect.stringMatching(/^dlv_test_/)],
    ]);
  });

  it('When the delivery of an event with a callback URL is still not stored after 10 s, then the event is forwarded with an id of its own', async () => {
    const h = harness(start);
    const relay = h.relay();
    await relay.prime();
    h.add('evt_test_stuck', 1, undefined, 'https://merchant.example/hooks');
    h.advance(5_000);
    expect(await relay.poll()).toEqual([]);
    h.advance(6_001);
    expect((await relay.poll()).map((r) => r.event.id)).toEqual(['evt_test_stuck']);
  });
});
