import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import { consumerGroupLag, createKafka, topicOffsets, type KafkaClient } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { Api } from './support/api';
import { startStack, type InProcessStack } from './support/stack';

// One merchant sending 80 % of the traffic (docs/operations.md, "Topics and partitions"). Every topic is keyed by an
// order, session, report or delivery id (TOPIC_KEYS), never by merchant, so the hot merchant's events spread over
// every partition instead of piling on one; the dispatcher's per-organization share (WEBHOOK_ORGANIZATION_SHARE)
// keeps its attempts from crowding out the others'. Shown here: every partition of every busy topic receives messages
// and is consumed to its end by every group, no webhook is lost, and each key's messages sit on one partition in the
// order they were written (revisions, and D49's event order). Printed: the other merchants' pay → webhook p50 and p99
// beside the hot merchant (from the pay's answer) against the same measurement without it.
// "Without the hot merchant" is the same traffic sent by many merchants: the four services share one process here,
// on 2 shared cores, so five times the requests would lengthen every answer whatever the keys; at equal load, what
// differs between the phases is only that 80 % of it is one merchant's, which is what a key decides.
// In the chaos tier: it loads the shared engines for about a minute, which no other file should see.

/** The measured merchants, and as many more who send, in the baseline, what the hot merchant sends in its phase. */
const OTHERS = 4;
const SPREAD = 4;
/** Journeys per second of the measured merchants together, and of the hot one (or the spread): 80 % of the traffic. */
const OTHERS_RATE = 1.5;
const HOT_RATE = 4 * OTHERS_RATE;
/**
 * The two phases interleave, WINDOW_SECONDS each, ROUNDS times (baseline, hot, baseline, hot…), so that the load
 * other work puts on this shared machine weighs on both alike.
 */
const WINDOW_SECONDS = 8;
const ROUNDS = 4;
const WARM_UP_SECONDS = 4;
/** Every REFUND_EVERY-th journey refunds part of its order: a second event per order key on both order topics. */
const REFUND_EVERY = 4;
/** Merchant 0 is the hot one, 1…OTHERS are measured, the rest spread the baseline's 80 %. */
const MERCHANTS = Array.from({ length: 1 + OTHERS + SPREAD }, (_, i) => i);
const ITEMS = [{ name: 'Latte', quantity: 2, unitPrice: 450 }];

interface Journey {
  merchant: number;
  phase: 'warm-up' | 'baseline' | 'hot';
  sessionId: string;
  orderId: string;
  paidAt: number;
  answeredAt: number;
  refunded: boolean;
}

let stack: InProcessStack;
let receiver: WebhookReceiver;
let kafka: KafkaClient;
let merchants: Api[];
let hotOrganization: string;
const journeys: Journey[] = [];
const failures: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({
    extraEnv: {
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
    },
  });
  kafka = createKafka({
    clientId: `hot-merchant-${randomBytes(3).toString('hex')}`,
    brokers: (stack.env.orders.KAFKA_BROKERS ?? '').split(','),
  });
  merchants = [];
  for (const i of MERCHANTS) {
    const org = await stack.admin.createOrganizationWithKeys(i === 0 ? 'Hot merchant' : `Merchant ${i}`);
    const api = new Api(stack.gatewayUrl, org.testKey);
    if (i === 0) hotOrganization = org.organizationId;
    const endpoint = await api.post('/v0/webhook_endpoints', { url: receiver.url(`/m${i}`), enabledEvents: ['*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    merchants.push(api);
  }
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

/** Sessions opened ahead of the measured windows, by merchant: a window then pays, which is what it times. */
const prepared = new Map<number, Array<{ sessionId: string; orderId: string }>>();

async function openSession(merchant: number): Promise<{ sessionId: string; orderId: string } | undefined> {
  const created = await (merchants[merchant] as Api).post('/v0/checkout/sessions', { items: ITEMS });
  if (created.status !== 201) return void failures.push(`session: ${created.status}`);
  return { sessionId: created.body.session.id, orderId: created.body.session.order.id };
}

/** Opens `count` sessions of `merchant` ahead, 8 at a time. */
async function prepare(merchant: number, count: number): Promise<void> {
  const list = prepared.get(merchant) ?? [];
  prepared.set(merchant, list);
  let left = count;
  const worker = async () => {
    for (; left > 0; left--) {
      const session = await openSession(merchant);
      if (session) list.push(session);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** One customer's journey: a session's payment (timed from the request to its webhook), sometimes a refund. */
async function journey(merchant: number, phase: Journey['phase'], n: number): Promise<void> {
  const api = merchants[merchant] as Api;
  const session = prepared.get(merchant)?.shift() ?? (await openSession(merchant));
  if (!session) return;
  const paidAt = Date.now();
  const paid = await api.post(`/v0/test_helpers/checkout/sessions/${session.sessionId}/pay`, {});
  if (paid.status !== 200) return void failures.push(`pay: ${paid.status}`);
  const refunded = n % REFUND_EVERY === 0;
  const answeredAt = Date.now();
  const orderId = session.orderId;
  journeys.push({ merchant, phase, sessionId: session.sessionId, orderId, paidAt, answeredAt, refunded });
  if (!refunded) return;
  const refund = await api.post(`/v0/orders/${orderId}/refunds`, { amount: 100 });
  if (refund.status !== 201) failures.push(`refund: ${refund.status}`);
}

/** Starts journeys at `rate` per second for `seconds` (open loop), for `merchantOf(n)`, in the phase of their start. */
async function run(seconds: number, rate: number, merchantOf: (n: number) => number, phaseOf: () => Journey['phase']) {
  const started = Date.now();
  const running: Promise<void>[] = [];
  for (let n = 0; n < rate * seconds; n++) {
    const wait = started + (n * 1000) / rate - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(journey(merchantOf(n), phaseOf(), n).catch((err: unknown) => void failures.push(String(err))));
  }
  await Promise.all(running);
}

/** Each delivery received, by merchant path: event type, event id and its body's order or session. */
function received(merchant: number) {
  return receiver.deliveries(`/m${merchant}`).map((d) => {
    const body = JSON.parse(d.body) as { id: string; event: string; session?: { id: string }; order?: { id: string } };
    return {
      type: body.event,
      id: body.id,
      at: d.receivedAt.getTime(),
      sessionId: body.session?.id,
      orderId: body.order?.id,
    };
  });
}

/** The p-th percentile of values, nearest rank. */
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
};
const p99 = (values: number[]) => percentile(values, 0.99);
const median = (values: number[]) => percentile(values, 0.5);

describe('One merchant with 80 % of the traffic', () => {
  it("delivers every webhook of every merchant beside it, and prints the others' webhook latency against the baseline", async () => {
    const others = (n: number) => 1 + (n % OTHERS);
    // Not measured: the first requests of a fresh stack pay for compiling its code and opening its connections.
    await Promise.all([
      run(WARM_UP_SECONDS, OTHERS_RATE, others, () => 'warm-up'),
      run(
        WARM_UP_SECONDS,
        HOT_RATE,
        (n) => 1 + OTHERS + (n % SPREAD),
        () => 'warm-up',
      ),
    ]);
    // Only payments in the measured windows: the sessions they pay are opened now, outside them.
    const measured = ROUNDS * WINDOW_SECONDS;
    for (let m = 1; m <= OTHERS; m++) await prepare(m, Math.ceil((2 * measured * OTHERS_RATE) / OTHERS) + 1);
    await prepare(0, measured * HOT_RATE);
    for (let m = 1 + OTHERS; m < MERCHANTS.length; m++) await prepare(m, Math.ceil((measured * HOT_RATE) / SPREAD) + 1);
    const started = Date.now();
    const windowOf = () => Math.floor((Date.now() - started) / (WINDOW_SECONDS * 1000));
    // The 80 %: the spread merchants in each baseline window, the hot merchant in each hot one.
    const eighty = async () => {
      for (let window = 0; window < 2 * ROUNDS; window++) {
        const wait = started + window * WINDOW_SECONDS * 1000 - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const merchantOf = window % 2 === 0 ? (n: number) => 1 + OTHERS + (n % SPREAD) : () => 0;
        await run(WINDOW_SECONDS, HOT_RATE, merchantOf, () => (window % 2 === 0 ? 'baseline' : 'hot'));
      }
    };
    await Promise.all([
      run(2 * ROUNDS * WINDOW_SECONDS, OTHERS_RATE, others, () => (windowOf() % 2 === 0 ? 'baseline' : 'hot')),
      eighty(),
    ]);
    expect(failures).toEqual([]);

    // Nothing lost: every payment's checkout.session.completed and order.paid, every refund's refund.succeeded.
    const missing = () => {
      const got = new Set(MERCHANTS.flatMap((m) => received(m).map((d) => `${d.type} ${d.sessionId ?? d.orderId}`)));
      return journeys.flatMap((j) =>
        [
          `checkout.session.completed ${j.sessionId}`,
          `order.paid ${j.orderId}`,
          ...(j.refunded ? [`refund.succeeded ${j.orderId}`] : []),
        ].filter((owed) => !got.has(owed)),
      );
    };
    // On a timeout the assertion below names what is missing.
    await eventually(() => missing().length === 0, {
      deadlineMs: 60_000,
      intervalMs: 500,
      description: 'every owed webhook',
    }).catch(() => undefined);
    expect(missing()).toEqual([]);

    // The measured merchants' pay → checkout.session.completed webhook, timed from the pay's answer (the part the keys
    // decide: the event's partition, its consumer, the dispatcher's lanes) and from its request (which adds the pay
    // answer's own time, spent before the event exists). Printed, not asserted: at ~48 payments a phase's p99 is its
    // slowest payment, so one hiccup of the shared 2 cores decides it whatever the keys (a bound of 1.5× the baseline
    // or the pay answers' tail failed 2 runs of ~30). What the keys decide is asserted by the tests below (every
    // partition reached and consumed, each key on one partition), and the dispatcher's per-merchant share by
    // services/webhook-dispatcher/src/domain/engine/host-scheduler.test.ts.
    const othersIn = (phase: Journey['phase']) =>
      journeys.filter((j) => j.merchant >= 1 && j.merchant <= OTHERS && j.phase === phase);
    const webhookAt = (j: Journey) =>
      received(j.merchant).find((d) => d.type === 'checkout.session.completed' && d.sessionId === j.sessionId)?.at ??
      Number.NaN;
    const fromRequest = (phase: Journey['phase']) => othersIn(phase).map((j) => webhookAt(j) - j.paidAt);
    const fromAnswer = (phase: Journey['phase']) => othersIn(phase).map((j) => webhookAt(j) - j.answeredAt);
    const [baseline, hot] = [fromAnswer('baseline'), fromAnswer('hot')];
    // Every measured payment of each phase but two was timed.
    expect(Math.min(baseline.length, hot.length)).toBeGreaterThanOrEqual(ROUNDS * WINDOW_SECONDS * OTHERS_RATE - 2);
    const payAnswers = [...othersIn('baseline'), ...othersIn('hot')].map((j) => j.answeredAt - j.paidAt);
    console.log(
      `others' pay answer → webhook p50 / p99: ${median(baseline)} / ${p99(baseline)} ms without the hot merchant, ` +
        `${median(hot)} / ${p99(hot)} ms beside it (p99 ${(p99(hot) / p99(baseline)).toFixed(2)}×; ` +
        `${baseline.length} and ${hot.length} payments; the pay answers' own p50 / p99 ${median(payAnswers)} / ` +
        `${p99(payAnswers)} ms); from the pay's request, p99: ${p99(fromRequest('baseline'))} and ` +
        `${p99(fromRequest('hot'))} ms`,
    );
  }, 180_000);

  it('reaches every partition of every busy topic, and every group consumes each to its end', async () => {
    const prefix = stack.env.orders.TOPIC_PREFIX;
    const readers: Array<[string, string]> = [
      [TOPICS.sessionEvents, CONSUMER_GROUPS.dispatcherSessionEvents],
      [TOPICS.orderEvents, CONSUMER_GROUPS.sessionsOrderEvents],
      [TOPICS.orderEvents, CONSUMER_GROUPS.ordersBalanceLines],
      [TOPICS.orderPublicEvents, CONSUMER_GROUPS.dispatcherOrderPublicEvents],
    ];
    for (const [topic, group] of readers) {
      const offsets = await topicOffsets(kafka, topicName(prefix, topic));
      expect(offsets.size, topic).toBeGreaterThan(1);
      for (const [partition, { high }] of offsets) expect(high, `${topic} partition ${partition}`).toBeGreaterThan(0);
      // Lag 0 with every partition non-empty: each partition's committed offset is its end.
      await eventually(
        async () =>
          (await consumerGroupLag(kafka, topicName(prefix, group), [topicName(prefix, topic)])).get(
            topicName(prefix, topic),
          ) === 0n,
        { deadlineMs: 30_000, intervalMs: 500, description: `${group} at the end of ${topic}` },
      );
    }
  });

  it("keeps each key's messages on one partition, in the order written", async () => {
    const prefix = stack.env.orders.TOPIC_PREFIX;
    const read = async (topic: string) => {
      const name = topicName(prefix, topic);
      const total = [...(await topicOffsets(kafka, name)).values()].reduce((sum, { high }) => sum + high, 0);
      const messages: Array<{ partition: number; offset: number; key: string; value: Record<string, unknown> }> = [];
      const reading = await readTopic({
        kafka,
        topic: name,
        groupId: `${name}.probe-${randomBytes(3).toString('hex')}`,
        onMessage: (m) =>
          messages.push({
            partition: m.partition,
            offset: Number(m.offset),
            key: m.key ?? '',
            value: JSON.parse(m.value),
          }),
      });
      await eventually(() => messages.length >= total, { deadlineMs: 30_000, description: `all of ${topic}` });
      await reading.stop();
      const byKey = new Map<string, typeof messages>();
      for (const m of messages.sort((a, b) => a.offset - b.offset)) byKey.set(m.key, [...(byKey.get(m.key) ?? []), m]);
      return { messages, byKey };
    };
    // The hot merchant's own session events are on every partition: it has no partition of its own.
    const sessions = await read(TOPICS.sessionEvents);
    const hotPartitions = new Set(
      sessions.messages.filter((m) => m.value.organizationId === hotOrganization).map((m) => m.partition),
    );
    expect(hotPartitions.size).toBe((await topicOffsets(kafka, topicName(prefix, TOPICS.sessionEvents))).size);

    const orderEvents = await read(TOPICS.orderEvents);
    const publicEvents = await read(TOPICS.orderPublicEvents);
    const rank = ['order.created', 'order.updated', 'order.paid', 'refund.created', 'refund.succeeded'];
    let multi = 0;
    for (const { byKey } of [orderEvents, publicEvents, sessions])
      for (const [key, list] of byKey) expect(new Set(list.map((m) => m.partition)).size, key).toBe(1);
    for (const [key, list] of orderEvents.byKey) {
      const revisions = list.map((m) => Number(m.value.revision));
      expect(revisions, key).toEqual([...revisions].sort((a, b) => a - b));
      if (list.length > 1) multi++;
    }
    for (const [key, list] of publicEvents.byKey) {
      const ranks = list.map((m) => rank.indexOf(String(m.value.type)));
      expect(ranks, key).toEqual([...ranks].sort((a, b) => a - b));
    }
    // The refunds gave orders a second event: the order checks above had something to check.
    expect(multi).toBeGreaterThan(0);
  });
});
