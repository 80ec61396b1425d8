// Webhook dispatcher benchmark: npm run bench -- webhooks (once main.ts wires it), or
//   npx tsx -e "import('./bench/src/webhooks.ts').then((m) => m.runWebhookBench())"
// Prints, with no assertions:
//   1. deliveries/s of a burst to fast local receivers, next to plain undici POSTs to the same receivers;
//   2. first-attempt latency p50/p99, from the moment the event is on the topic to the request at the receiver;
//   3. p99 of healthy endpoints while half of all endpoints time out, next to the all-healthy p99.
import { randomBytes } from 'node:crypto';
import { createEventProducer, createKafka, type EventProducer } from '@checkout/kafka';
import { MongoClient } from 'mongodb';
import { request } from 'undici';
import { startEngines, type Engines } from '@checkout/engines';
import { createLogger } from '@checkout/logger';
import { ANSWER, buildSessionEvent, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { TOPICS, topicName, type SessionEventV1 } from '@checkout/contracts';
import { buildApp, parseConfig } from '@checkout/webhook-dispatcher';
import { percentile } from './load';

export interface WebhookBenchOptions {
  /** Engines to use; otherwise KAFKA_BROKERS / MONGODB_URL, otherwise startEngines(). */
  engines?: { kafkaBrokers: string[]; mongoUrl: string };
  /** Events in the throughput burst. */
  burst?: number;
  /** Paced rate (events/s) and duration of the latency scenarios. */
  ratePerSecond?: number;
  paceSeconds?: number;
  receivers?: number;
  timeoutMs?: number;
}

function sessionEvent(callbackUrl: string, producedAt: number): SessionEventV1 {
  return buildSessionEvent({ callbackUrl, organizationId: 'org_bench', sessionData: { producedAt } });
}

/** ms from produce (acknowledged by the broker) to arrival, per event id. */
function latencies(receivers: readonly WebhookReceiver[], producedAt: Map<string, number>): number[] {
  const out: number[] = [];
  for (const receiver of receivers) {
    for (const r of receiver.deliveries()) {
      const sent = producedAt.get(String(r.headers['x-service-event-id']));
      if (sent !== undefined) out.push(r.receivedAt.getTime() - sent);
    }
  }
  return out.sort((a, b) => a - b);
}

async function waitUntil(condition: () => boolean, deadlineMs: number): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Produces `rate` events/s for `seconds` to the given URLs (round robin), recording produce-ack times. */
async function paced(producer: EventProducer, topic: string, urls: readonly string[], rate: number, seconds: number, producedAt: Map<string, number>): Promise<SessionEventV1[]> {
  const all: SessionEventV1[] = [];
  const tick = 100;
  const perTick = Math.max(1, Math.round((rate * tick) / 1000));
  const end = Date.now() + seconds * 1000;
  let i = 0;
  while (Date.now() < end) {
    const started = Date.now();
    const batch = Array.from({ length: perTick }, () => sessionEvent(urls[i++ % urls.length] as string, Date.now()));
    await producer.send(batch.map((e) => ({ topic, key: e.sessionId, value: JSON.stringify(e) })));
    const acked = Date.now();
    for (const e of batch) producedAt.set(e.eventId, acked);
    all.push(...batch);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, tick - (Date.now() - started))));
  }
  return all;
}

export async function runWebhookBench(options: WebhookBenchOptions = {}): Promise<void> {
  const burst = options.burst ?? 1_000;
  const rate = options.ratePerSecond ?? 20;
  const paceSeconds = options.paceSeconds ?? 10;
  const receiverCount = options.receivers ?? 8;
  const timeoutMs = options.timeoutMs ?? 1_000;

  let owned: Engines | undefined;
  let engines = options.engines;
  if (!engines && process.env.KAFKA_BROKERS && process.env.MONGODB_URL) engines = { kafkaBrokers: process.env.KAFKA_BROKERS.split(','), mongoUrl: process.env.MONGODB_URL };
  if (!engines) engines = owned = await startEngines({ log: (line) => process.stderr.write(`[engines] ${line}\n`) });

  const name = `bench_webhooks_${randomBytes(3).toString('hex')}`;
  const receivers = await Promise.all(Array.from({ length: receiverCount }, () => startWebhookReceiver()));
  const config = parseConfig({
    MONGODB_URL: engines.mongoUrl,
    MONGODB_DATABASE: name,
    KAFKA_BROKERS: engines.kafkaBrokers.join(','),
    TOPIC_PREFIX: name,
    INTERNAL_TOKEN: 'bench-internal-token-0123456789',
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'error',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    WEBHOOK_TIMEOUT_MS: String(timeoutMs),
    WEBHOOK_RETRY_DELAYS_MS: '60000,120000,180000,240000',
  });
  const app = buildApp(config, createLogger('bench', { level: 'error' }));
  await app.start();
  const producer = createEventProducer(createKafka({ clientId: 'bench', brokers: engines.kafkaBrokers }));
  await producer.connect();
  const topic = topicName(config.TOPIC_PREFIX, TOPICS.sessionEvents);
  const rows: string[][] = [];

  try {
    // 1. Throughput of a burst, and the same number of plain undici POSTs to the same receivers.
    const burstEvents = Array.from({ length: burst }, (_, i) => sessionEvent(receivers[i % receivers.length]?.url('/burst') as string, 0));
    const burstStarted = Date.now();
    for (let i = 0; i < burstEvents.length; i += 200) {
      await producer.send(burstEvents.slice(i, i + 200).map((e) => ({ topic, key: e.sessionId, value: JSON.stringify(e) })));
    }
    const delivered = () => receivers.reduce((n, r) => n + r.deliveries('/burst').length, 0);
    const completed = await waitUntil(() => delivered() >= burst, 120_000);
    const dispatcherRate = delivered() / ((Date.now() - burstStarted) / 1000);

    const body = JSON.stringify(burstEvents[0]?.body);
    const baselineStarted = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < burst) {
          const i = next++;
          const response = await request(receivers[i % receivers.length]?.url('/baseline') as string, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          await response.body.dump();
        }
      }),
    );
    const baselineRate = burst / ((Date.now() - baselineStarted) / 1000);
    rows.push(['burst throughput', `${dispatcherRate.toFixed(0)} deliveries/s${completed ? '' : ' (incomplete)'}`, `undici baseline ${baselineRate.toFixed(0)} POST/s`, `ratio ${(dispatcherRate / baselineRate).toFixed(3)}`]);

    // 2. First-attempt latency at a steady rate, all endpoints healthy.
    for (const r of receivers) r.clear();
    const healthyProduced = new Map<string, number>();
    const healthyEvents = await paced(producer, topic, receivers.map((r) => r.url('/steady')), rate, paceSeconds, healthyProduced);
    await waitUntil(() => receivers.reduce((n, r) => n + r.deliveries('/steady').length, 0) >= healthyEvents.length, 60_000);
    const healthy = latencies(receivers, healthyProduced);
    rows.push(['first-attempt latency, all healthy', `p50 ${percentile(healthy, 50)} ms`, `p99 ${percentile(healthy, 99)} ms`, `n=${healthy.length}`]);

    // 3. Half of the endpoints hang (each attempt times out); healthy endpoints' latency meanwhile.
    for (const r of receivers) r.clear();
    const half = Math.floor(receivers.length / 2);
    const hanging = receivers.slice(0, half);
    const fine = receivers.slice(half);
    for (const r of hanging) r.answer('/mixed', ANSWER.hang);
    const mixedProduced = new Map<string, number>();
    const mixedEvents = await paced(producer, topic, receivers.map((r) => r.url('/mixed')), rate, paceSeconds, mixedProduced);
    const expectedHealthy = mixedEvents.filter((e) => fine.some((r) => e.callbackUrl === r.url('/mixed'))).length;
    await waitUntil(() => fine.reduce((n, r) => n + r.deliveries('/mixed').length, 0) >= expectedHealthy, 60_000);
    const mixed = latencies(fine, mixedProduced);
    rows.push(['first-attempt latency, healthy half while half time out', `p50 ${percentile(mixed, 50)} ms`, `p99 ${percentile(mixed, 99)} ms (all-healthy p99 ${percentile(healthy, 99)} ms)`, `n=${mixed.length}`]);
  } finally {
    await producer.disconnect().catch(() => {});
    await app.stop();
    for (const r of receivers) await r.close();
    const client = new MongoClient(engines.mongoUrl);
    await client.connect().then(() => client.db(name).dropDatabase()).catch(() => {});
    await client.close();
    await owned?.stop();
  }

  console.log(`webhook dispatcher benchmark (${receiverCount} receivers on 127.0.0.1, timeout ${timeoutMs} ms, paced ${rate}/s for ${paceSeconds} s)`);
  for (const row of rows) console.log(`  ${row.join(' | ')}`);
}
