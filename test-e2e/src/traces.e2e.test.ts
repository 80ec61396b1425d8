import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { request } from 'undici';
import { AdminClient, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startTraceBackend, type TraceBackend } from '../../scripts/lib/observability';
import { startProcessStack, type ProcessStack } from '../../scripts/lib/process-stack';
import { Api } from './support/api';
import { buildSessionInput, uniqueId } from './support/factories';
import { secretsIn } from './support/secrets';

// One payment, followed across the four services and Kafka in a real trace store. The services run as
// processes (each its own service.name, configured only by OTEL_* variables as in a deployment) and export to
// Zipkin's span API with OpenTelemetry's Zipkin exporter (OTEL_TRACES_EXPORTER=zipkin;
// scripts/lib/observability.ts, the backend of `npm start -- --observability`). A customer pays on the hosted
// page through the gateway; the test then asks Zipkin's own query API for the payment's trace and checks that it
// is ONE trace, holding spans of all four services, both Kafka hops (session event: sessions → dispatcher; order
// event: orders → sessions) and the webhook attempt, each span's parent in the same trace. Last, every span
// exported during the run is scanned for secrets, keys, card numbers and the customer's details.

interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string;
  name: string;
  kind?: 'CLIENT' | 'SERVER' | 'PRODUCER' | 'CONSUMER';
  timestamp?: number;
  duration?: number;
  localEndpoint?: { serviceName?: string };
  tags?: Record<string, string>;
}

const SERVICES = ['gateway', 'orders', 'sessions', 'webhook-dispatcher'] as const;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * Where the UI test saves its screenshot (docs/trace-screenshot.png was made with
 * TRACE_SCREENSHOT=docs/trace-screenshot.png).
 */
const SCREENSHOT = process.env.TRACE_SCREENSHOT;
const CUSTOMER = { email: 'traced.payer@example.com', phone: '+1 415 555 0199' };

let backend: TraceBackend;
let stack: ProcessStack;
let receiver: WebhookReceiver;
const secrets = new Map<string, string>();

async function zipkin<T>(path: string): Promise<T> {
  const response = await request(`${backend.zipkinUrl}${path}`);
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`Zipkin ${path}: ${response.statusCode} ${text}`);
  return JSON.parse(text) as T;
}

async function payOnHostedPage(sessionId: string, cardNumber: string): Promise<number> {
  const base = stack.env.checkoutBaseUrl;
  const page = await request(`${base}/${sessionId}`);
  const html = await page.body.text();
  const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const paid = await request(`${base}/${sessionId}/pay`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, method: 'card', cardNumber }).toString(),
  });
  await paid.body.text();
  return paid.statusCode;
}

/** The ancestors of a span, nearest first, as far as they are in the trace. */
function ancestors(span: ZipkinSpan, byId: Map<string, ZipkinSpan>): ZipkinSpan[] {
  const chain: ZipkinSpan[] = [];
  for (let parent = byId.get(span.parentId ?? ''); parent; parent = byId.get(parent.parentId ?? '')) chain.push(parent);
  return chain;
}

const serviceOf = (span: ZipkinSpan) => span.localEndpoint?.serviceName ?? '';

beforeAll(async () => {
  const mongoUrl = process.env.MONGODB_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!mongoUrl || !brokers)
    throw new Error('KAFKA_BROKERS and MONGODB_URL must be set (the e2e global setup provides them)');
  const logDir = mkdtempSync(join(tmpdir(), 'checkout-traces-'));
  backend = await startTraceBackend({ logDir, log: (line) => process.stderr.write(`[traces] ${line}\n`) });
  const otel = { ...backend.env, OTEL_TRACES_SAMPLER: 'parentbased_always_on' };
  receiver = await startWebhookReceiver();
  stack = await startProcessStack({
    mongoUrl,
    kafkaBrokers: brokers.split(','),
    namePrefix: `traces_${uniqueId('t')
      .replace(/[^0-9a-z]/gi, '')
      .slice(-8)}`,
    logLevel: 'info',
    logDir,
    webhookRetryDelaysMs: '200,400,800,1600',
    extraEnv: { gateway: otel, orders: otel, sessions: otel, dispatcher: otel },
  });
  // The first run fetches Zipkin's jar from Maven Central (cached under ~/.cache/checkout-tools afterwards).
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await backend?.stop();
});

describe('One payment, one trace', () => {
  let sessionId = '';
  let trace: ZipkinSpan[] = [];

  it('When a customer pays on the hosted page, then Zipkin holds ONE trace with spans of all four services, both Kafka hops and the webhook attempt, correctly parented', async () => {
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const org = await admin.createOrganizationWithKeys('Traced Coffee Co');
    const { webhookSigningSecret } = await admin.call<{ webhookSigningSecret: string }>(
      'PATCH',
      `/organizations/${org.organizationId}/checkout-settings`,
      { mode: 'test', webhookSigning: true },
    );
    secrets
      .set('test key', org.testKey)
      .set('live key', org.liveKey)
      .set('admin token', stack.env.adminToken)
      .set('test signing secret', webhookSigningSecret)
      .set('CSRF secret', stack.env.sessions.CSRF_SECRET ?? '')
      .set('ID derivation secret', stack.env.sessions.ID_DERIVATION_SECRET ?? '')
      .set('processor HMAC secret', stack.env.processorWebhookSecret)
      .set('processor refund HMAC secret', stack.env.processorRefundWebhookSecret)
      .set('customer email', CUSTOMER.email)
      .set('customer phone', CUSTOMER.phone);
    for (const [caller, token] of Object.entries(stack.env.internalTokens))
      secrets.set(`${caller} internal token`, token);

    const api = new Api(stack.env.gatewayUrl, org.testKey);
    const created = await api.post(
      '/v0/checkout/sessions',
      buildSessionInput({
        externalId: uniqueId('traced'),
        callbackUrl: receiver.url('/hooks/traced'),
        customer: CUSTOMER,
      }),
    );
    expect(created.status).toBe(201);
    sessionId = created.body.session.id;
    // A session id opens its hosted page: like a key, it must never reach the trace store.
    secrets.set('checkout session id', sessionId);
    expect(await payOnHostedPage(sessionId, '4242 4242 4242 4242')).toBe(303);
    await eventually(() => receiver.deliveries('/hooks/traced').length >= 1, {
      deadlineMs: 60_000,
      description: 'the webhook of the payment',
    });
    const deliveryId = String(receiver.deliveries('/hooks/traced')[0]!.headers['x-service-delivery-id']);
    expect(deliveryId).toMatch(/^dlv_/);

    // The order event reaches Kafka from orders' relay sweep, seconds after the answer; the batch processors
    // export within a second. Wait until the whole trace is in the store, found by the delivery id the webhook
    // carried (no span names the session: its id opens the hosted page).
    let candidates: ZipkinSpan[][] = [];
    trace = await eventually(
      async () => {
        candidates = await zipkin<ZipkinSpan[][]>(
          `/api/v2/traces?serviceName=webhook-dispatcher&annotationQuery=${encodeURIComponent(`checkout.delivery_id=${deliveryId}`)}&limit=20&lookback=3600000`,
        );
        const paid = candidates.filter((spans) => spans.some((span) => span.name === 'webhook attempt'));
        if (paid.length === 0) return undefined;
        const spans = paid[0]!;
        const hops = ['checkout.session.events', 'orders.events'].every(
          (topic) =>
            spans.some(
              (span) => span.kind === 'PRODUCER' && span.tags?.['messaging.destination.name']?.endsWith(topic),
            ) &&
            spans.some(
              (span) => span.kind === 'CONSUMER' && span.tags?.['messaging.destination.name']?.endsWith(topic),
            ),
        );
        // orders.events has two readers, sessions and orders' ledger (D52): the trace is whole with both.
        const orderReaders = spans.filter(
          (span) => span.kind === 'CONSUMER' && span.tags?.['messaging.destination.name']?.endsWith('orders.events'),
        ).length;
        return hops &&
          orderReaders >= 2 &&
          SERVICES.every((service) => spans.some((span) => serviceOf(span) === service))
          ? spans
          : undefined;
      },
      { deadlineMs: 60_000, intervalMs: 1_000, description: 'the payment trace, whole, in Zipkin' },
    ).catch((err: unknown) => {
      const seen = candidates.map((spans) => spans.map((span) => `${serviceOf(span)} ${span.kind ?? ''} ${span.name}`));
      throw new Error(`${String(err)}; traces naming the delivery: ${JSON.stringify(seen, null, 1)}`);
    });

    const byId = new Map(trace.map((span) => [span.id, span]));
    expect(new Set(trace.map((span) => span.traceId)).size).toBe(1);
    // One root, the gateway's server span of the payment; every other span's parent is in the trace.
    const roots = trace.filter((span) => !span.parentId || !byId.has(span.parentId));
    expect(roots.map((span) => [serviceOf(span), span.kind, span.tags?.['http.route']])).toEqual([
      ['gateway', 'SERVER', '/checkout/*path'],
    ]);
    expect([...new Set(trace.map(serviceOf))].sort()).toEqual([...SERVICES]);

    // The webhook attempt: the dispatcher's consumer span of the session event, child of sessions' publish,
    // which descends from the gateway's request.
    const attempt = trace.find((span) => span.name === 'webhook attempt')!;
    expect(serviceOf(attempt)).toBe('webhook-dispatcher');
    expect(attempt.tags).toMatchObject({
      'checkout.attempt': '1',
      'checkout.outcome': 'success',
      'http.response.status_code': '200',
      'checkout.event_type': 'checkout.session.completed',
    });
    expect(attempt.tags?.['checkout.delivery_id']).toBe(deliveryId);
    expect(attempt.duration).toBeGreaterThan(0);
    const [consumer, producer] = ancestors(attempt, byId);
    expect([serviceOf(consumer!), consumer!.kind]).toEqual(['webhook-dispatcher', 'CONSUMER']);
    expect(consumer!.tags?.['messaging.destination.name']).toMatch(/checkout\.session\.events$/);
    expect([serviceOf(producer!), producer!.kind]).toEqual(['sessions', 'PRODUCER']);
    expect(ancestors(producer!, byId).at(-1)).toBe(roots[0]);

    // The order event: orders' publish (from its relay's sweep, continuing the stored context) and, under it in the
    // same trace, its two readers' consumer spans: sessions' copy of the order, and orders' own ledger (D52).
    const orderConsumers = trace.filter(
      (span) => span.kind === 'CONSUMER' && span.tags?.['messaging.destination.name']?.endsWith('orders.events'),
    );
    expect(orderConsumers.map(serviceOf).sort()).toEqual(['orders', 'sessions']);
    const orderConsumer = orderConsumers.find((span) => serviceOf(span) === 'sessions')!;
    const orderPublish = byId.get(orderConsumer.parentId!)!;
    expect([serviceOf(orderPublish), orderPublish.kind]).toEqual(['orders', 'PRODUCER']);
    expect(orderConsumers.map((span) => span.parentId)).toEqual([orderPublish.id, orderPublish.id]);
    // orders' publish descends from orders' own server span of the payment, which sessions called.
    const ordersServer = ancestors(orderPublish, byId).find((span) => span.kind === 'SERVER');
    expect(serviceOf(ordersServer!)).toBe('orders');
    expect(serviceOf(byId.get(ordersServer!.parentId!)!)).toBe('sessions');

    // The span tree of this payment (service, span name, duration), for the record.
    const tree: string[] = [];
    const print = (span: ZipkinSpan, depth: number) => {
      tree.push(
        `  ${'  '.repeat(depth)}${serviceOf(span)}  ${span.name}  ${((span.duration ?? 0) / 1000).toFixed(1)} ms`,
      );
      for (const child of trace
        .filter((other) => other.parentId === span.id)
        .sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0)))
        print(child, depth + 1);
    };
    print(roots[0]!, 0);
    process.stderr.write(
      `[traces] payment ${sessionId}, trace ${attempt.traceId}, ${trace.length} spans:\n${tree.join('\n')}\n`,
    );
  });

  it("When every span exported during the run is read back, then none carries a secret, a key, a card number, the session id or the customer's details", async () => {
    expect(trace.length).toBeGreaterThan(0);
    const everything: ZipkinSpan[] = [];
    for (const service of SERVICES)
      for (const spans of await zipkin<ZipkinSpan[][]>(
        `/api/v2/traces?serviceName=${service}&limit=10000&lookback=3600000`,
      ))
        everything.push(...spans);
    expect(new Set(everything.map(serviceOf))).toEqual(new Set(SERVICES));
    // What a span says: its name, kind, endpoints and attributes (timestamps, durations and ids are numbers
    // and hex the scan would misread as card numbers).
    const text = JSON.stringify(
      everything.map(({ name, kind, localEndpoint, tags }) => ({ name, kind, localEndpoint, tags })),
    );
    for (const [name, value] of secrets) expect(value.length, name).toBeGreaterThan(10);
    expect(secretsIn(text, secrets)).toEqual([]);
    // The scan can fail: the same scan finds what it looks for.
    expect(secretsIn(`${text}${CUSTOMER.email}4242424242424242`, secrets)).toEqual([
      'customer email',
      'card number 4242…',
    ]);
  });

  it("When the payment's trace is opened in Zipkin's UI, then the UI shows its spans from every service", async () => {
    expect(trace.length).toBeGreaterThan(0);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      // Loopback only: whatever the UI would fetch from elsewhere (web fonts) is refused at once, not waited for.
      await page.route(
        (url) => url.hostname !== '127.0.0.1',
        (route) => route.abort(),
      );
      await page.goto(`${backend.zipkinUrl}/zipkin/traces/${trace[0]!.traceId}`, {
        waitUntil: 'domcontentloaded',
        timeout: 90_000,
      });
      await page.getByText('webhook attempt').first().waitFor({ timeout: 60_000 });
      const text = await page.locator('body').innerText();
      for (const service of SERVICES) expect(text.toLowerCase()).toContain(service);
      if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
