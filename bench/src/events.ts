import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import type { Engines } from '@checkout/engines';
import { EVENT_TYPES, PROCESSOR_SIGNATURE_HEADER, signProcessorPayload, type EventType } from '@checkout/contracts';
import { AdminClient, eventually, metricValue, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startBenchStack, UNLIMITED_GATEWAY, type BenchStack } from './stack';
import { percentile } from './load';

// Every event as fast as its cause: for each cause of each catalog type (D30, D49), the time from the request that
// causes the event being sent to the event's first delivery reaching a merchant's endpoint (a loopback receiver
// subscribed to every type, D50), one cause at a time on an otherwise idle stack. Also how each service's outbox
// relay published its events: by the write (fast) or by the sweep, which only a crash or an outage should need.

/** cause → first delivery p99 on an idle machine at a modest rate (docs/webhooks.md, "How fast an event arrives"). */
const BUDGET_P99_MS = 250;

/** When the first delivery of `type` naming `id` reached the merchant's endpoint (epoch ms). */
function firstDelivery(receiver: WebhookReceiver, type: EventType, id: string): Promise<number> {
  const isIt = (body: string) => body.includes(`"${id}"`) && (JSON.parse(body) as { event?: string }).event === type;
  return eventually(
    () =>
      receiver
        .deliveries()
        .find((d) => isIt(d.body))
        ?.receivedAt.getTime(),
    {
      intervalMs: 5,
      description: `the first ${type} delivery for ${id}`,
    },
  );
}

/** The merchant's and the processor's calls through the gateway. */
export function clientOf(stack: BenchStack, keys: { test: string; live: string }) {
  const call = async <T = Answer>(
    mode: 'test' | 'live',
    method: 'POST' | 'PATCH',
    path: string,
    body: unknown = {},
  ): Promise<T> => {
    const response = await request(`${stack.env.gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${keys[mode]}`,
        'content-type': 'application/json',
        'idempotency-key': randomBytes(12).toString('hex'),
      },
      body: JSON.stringify(body),
    });
    const answer = await response.body.json();
    if (response.statusCode >= 300)
      throw new Error(`${method} ${path}: ${response.statusCode} ${JSON.stringify(answer)}`);
    return answer as T;
  };
  const processor = async (path: 'notifications' | 'refund_notifications', body: unknown) => {
    const raw = JSON.stringify(body);
    const secret = path === 'notifications' ? stack.env.processorWebhookSecret : stack.env.processorRefundWebhookSecret;
    const signature = signProcessorPayload(secret, raw, Math.floor(Date.now() / 1000));
    const response = await request(`${stack.env.gatewayUrl}/v0/processor/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [PROCESSOR_SIGNATURE_HEADER]: signature },
      body: raw,
    });
    if (response.statusCode !== 200)
      throw new Error(`processor ${path}: ${response.statusCode} ${await response.body.text()}`);
    await response.body.dump();
  };
  return { call, processor };
}

/** The fields of the API's answers (orders, sessions, refunds) that name what an event is about. */
interface Answer {
  order: { id: string };
  session: { id: string; order: { id: string; amounts: { total: number } } };
  refund: { id: string; status: string };
}

const ORDER = { items: [{ name: 'Tea', quantity: 2, unitPrice: 600 }] };
const SESSION = { ...ORDER, successUrl: 'https://merchant.example/thanks' };

/** One row of the table: a catalog type and one of its causes. */
interface Sample {
  type: EventType;
  cause: string;
}

type Client = ReturnType<typeof clientOf>;

/** Runs a cause's request and waits for the first deliveries of the events its answer names, recording each. */
type Timed = <T>(cause: string, act: () => Promise<T>, events: (answer: T) => Array<[EventType, string]>) => Promise<T>;

/** Each cause is timed from just before its request is sent to its events' first deliveries. */
function timerOf(receiver: WebhookReceiver, record: (sample: Sample, ms: number) => void): Timed {
  return async (cause, act, events) => {
    const sent = Date.now();
    const answer = await act();
    await Promise.all(
      events(answer).map(async ([type, id]) =>
        record({ type, cause }, (await firstDelivery(receiver, type, id)) - sent),
      ),
    );
    return answer;
  };
}

/** One round: every cause once, in the order a merchant's day makes them. */
async function round(
  client: Client,
  receiver: WebhookReceiver,
  record: (sample: Sample, ms: number) => void,
): Promise<void> {
  const timed = timerOf(receiver, record);
  await orderCauses(client.call, timed);
  await testPaymentCauses(client.call, timed);
  await expiryCause(client.call, timed);
  await liveCauses(client, timed);
}

async function orderCauses(call: Client['call'], timed: Timed): Promise<void> {
  const order = await timed(
    'POST /v0/orders',
    () => call('test', 'POST', '/v0/orders', ORDER),
    (a) => [['order.created', a.order.id]],
  );
  await timed(
    'PATCH /v0/orders/:id',
    () => call('test', 'PATCH', `/v0/orders/${order.order.id}`, { metadata: { gift: 'yes' } }),
    (a) => [['order.updated', a.order.id]],
  );
  await timed(
    'POST /v0/orders/:id/cancel',
    () => call('test', 'POST', `/v0/orders/${order.order.id}/cancel`),
    (a) => [['order.cancelled', a.order.id]],
  );
}

/** A test session paid in two parts by the test helper, then refunded twice: one succeeding, one settled as failed. */
async function testPaymentCauses(call: Client['call'], timed: Timed): Promise<void> {
  const session = await timed(
    'POST /v0/checkout/sessions',
    () => call('test', 'POST', '/v0/checkout/sessions', SESSION),
    (a) => [['order.created', a.session.order.id]],
  );
  const pay = `/v0/test_helpers/checkout/sessions/${session.session.id}/pay`;
  await timed(
    'a partial payment (test helper)',
    () => call('test', 'POST', pay, { method: 'stablecoin', amount: 200 }),
    (a) => [['order.updated', a.session.order.id]],
  );
  await timed(
    'the payment that completes (test helper)',
    () => call('test', 'POST', pay, {}),
    (a) => [
      ['order.paid', a.session.order.id],
      ['checkout.session.completed', a.session.id],
    ],
  );
  await timed(
    'POST /v0/orders/:id/refunds',
    () => call('test', 'POST', `/v0/orders/${session.session.order.id}/refunds`, { amount: 100 }),
    (a) => [
      ['refund.created', a.refund.id],
      ['refund.succeeded', a.refund.id],
    ],
  );
  const failing = await call('test', 'POST', `/v0/test_helpers/orders/${session.session.order.id}/refunds`, {
    amount: 100,
    outcome: 'pending',
  });
  await timed(
    'POST /v0/test_helpers/refunds/:id/settle',
    () => call('test', 'POST', `/v0/test_helpers/refunds/${failing.refund.id}/settle`, { outcome: 'failed' }),
    (a) => [['refund.failed', a.refund.id]],
  );
}

async function expiryCause(call: Client['call'], timed: Timed): Promise<void> {
  const expiring = await call('test', 'POST', '/v0/checkout/sessions', SESSION);
  await timed(
    'POST /v0/test_helpers/checkout/sessions/:id/expire',
    () => call('test', 'POST', `/v0/test_helpers/checkout/sessions/${expiring.session.id}/expire`),
    (a) => [['checkout.session.expired', a.session.id]],
  );
}

/** A live session paid by the processor's notification, and a refund of it settled by the processor's. */
async function liveCauses({ call, processor }: Client, timed: Timed): Promise<void> {
  const live = await call('live', 'POST', '/v0/checkout/sessions', SESSION);
  const due = live.session.order.amounts.total;
  await timed(
    "the processor's payment notification (live)",
    () =>
      processor('notifications', {
        paymentId: `pay_live_${randomBytes(8).toString('hex')}`,
        sessionId: live.session.id,
        amount: due,
        method: 'card',
        capturedAt: new Date().toISOString(),
      }),
    () => [
      ['order.paid', live.session.order.id],
      ['checkout.session.completed', live.session.id],
    ],
  );
  const pending = await call('live', 'POST', `/v0/orders/${live.session.order.id}/refunds`, { amount: 100 });
  await timed(
    "the processor's refund notification (live)",
    () =>
      processor('refund_notifications', {
        refundId: pending.refund.id,
        outcome: 'succeeded',
        settledAt: new Date().toISOString(),
      }),
    () => [['refund.succeeded', pending.refund.id]],
  );
}

export async function runEventsBench(engines: Engines, options: { rounds: number }): Promise<void> {
  console.log(
    `events benchmark: ${options.rounds} rounds of every cause of every catalog type, one at a time; engines: ${engines.description}`,
  );
  const stack = await startBenchStack(engines, {
    services: ['orders', 'sessions', 'gateway', 'webhook-dispatcher'],
    replicas: 1,
    extraEnv: {
      gateway: UNLIMITED_GATEWAY,
    },
  });
  const receiver = await startWebhookReceiver();
  try {
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const org = await admin.createOrganizationWithKeys('Bench Events Org');
    const client = clientOf(stack, { test: org.testKey, live: org.liveKey });
    for (const mode of ['test', 'live'] as const)
      await client.call(mode, 'POST', '/v0/webhook_endpoints', { url: receiver.url('/hooks'), enabledEvents: ['*'] });

    const samples = new Map<string, { sample: Sample; ms: number[] }>();
    const record = (sample: Sample, ms: number) => {
      const key = `${sample.type}\u0000${sample.cause}`;
      const row = samples.get(key) ?? { sample, ms: [] };
      row.ms.push(ms);
      samples.set(key, row);
    };
    await round(client, receiver, () => {}); // warm-up: connections, JIT, the dispatcher's settings cache
    for (let i = 0; i < options.rounds; i += 1) await round(client, receiver, record);

    const rows = [...samples.values()].sort((a, b) => a.sample.type.localeCompare(b.sample.type));
    const header = ['event type', 'cause', 'n', 'p50 ms', 'p99 ms', 'max ms', `p99 ≤ ${BUDGET_P99_MS} ms`];
    const table = rows.map(({ sample, ms }) => {
      const sorted = [...ms].sort((a, b) => a - b);
      const p99 = percentile(sorted, 99);
      return [
        sample.type,
        sample.cause,
        String(sorted.length),
        percentile(sorted, 50).toFixed(1),
        p99.toFixed(1),
        (sorted.at(-1) ?? Number.NaN).toFixed(1),
        p99 <= BUDGET_P99_MS ? '✓' : '✗',
      ];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => (r[i] ?? '').length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
    console.log(`\ncause → first delivery of its event (${new Date().toISOString()})`);
    console.log(line(header));
    for (const row of table) console.log(line(row));
    const measured = new Set(rows.map((r) => r.sample.type));
    const unmeasured = EVENT_TYPES.filter((type) => !measured.has(type));
    console.log(
      `catalog types without a cause here: ${unmeasured.length === 0 ? 'none ✓' : `${unmeasured.join(', ')} ✗`}`,
    );

    console.log('\nhow each outbox relay published its events (outbox_publish_delay_seconds_count by path)');
    for (const service of ['orders', 'sessions'] as const) {
      for (const url of stack.metricsUrls(service)) {
        const [fast, sweep] = await Promise.all(
          ['fast', 'sweep'].map((path) => metricValue(url, 'outbox_publish_delay_seconds_count', { path })),
        );
        console.log(`${service.padEnd(8)}  by the write ${fast}, by the sweep ${sweep} ${sweep === 0 ? '✓' : '✗'}`);
      }
    }
  } finally {
    await receiver.close();
    await stack.stop();
  }
}
