import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createKafka, readTopic } from '@checkout/kafka';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { TOPICS, topicName } from '@checkout/contracts';
import { AdminClient, eventually } from '@checkout/testing';
import { startProcessStack } from '../../scripts/lib/process-stack';
import { formatTable, percentile, runLoad, type LoadResult } from './load';

const SESSION = JSON.stringify({
  items: [
    { name: 'Espresso', quantity: 2, unitPrice: 350 },
    { name: 'Croissant', quantity: 1, unitPrice: 425 },
  ],
  taxes: [{ type: 'additive', amount: 90 }],
  successUrl: 'https://merchant.example/thanks?session={SESSION_ID}',
});
/** Payments run at a moderate, fixed concurrency: the figure of interest is latency, not saturation. */
const PAY_CONCURRENCY = 8;

/** Runs `count` calls of `task` with at most `concurrency` in flight. */
async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

const ms = (value: number) => value.toFixed(2);

/**
 * (a) `POST /v0/checkout/sessions` through the gateway at fixed concurrency; (b) time from a test-helper payment
 * request being sent to its `checkout.session.completed` event being seen on the topic, over `payments` sessions.
 */
export async function runSessionsBench(engines: Engines, options: { concurrency: number; durationMs: number; payments: number }): Promise<void> {
  console.log(
    `sessions benchmark: concurrency ${options.concurrency}, ${options.durationMs / 1000} s for create, ${options.payments} payments at concurrency ${PAY_CONCURRENCY}, engines: ${engines.description}`,
  );
  const stack = await startProcessStack({
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: `bench_${Date.now()}`,
    logDir: join(tmpdir(), 'checkout-bench'),
    services: ['orders', 'sessions', 'gateway'],
    logLevel: 'warn',
    extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '1000000' } },
  });
  const admin = new AdminClient(stack.env.gatewayUrl, stack.env.adminToken);
  const org = await admin.createOrganizationWithKeys('Bench Sessions Org');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${org.testKey}` };
  const pool = new Pool(stack.env.gatewayUrl, { connections: Math.max(options.concurrency, PAY_CONCURRENCY), pipelining: 1 });
  const kafka = createKafka({ clientId: `bench-sessions-${Date.now()}`, brokers: engines.kafkaBrokers });
  let probe: Awaited<ReturnType<typeof readTopic>> | undefined;
  try {
    const createSession = async (): Promise<string | undefined> => {
      const response = await pool.request({ method: 'POST', path: '/v0/checkout/sessions', headers, body: SESSION });
      const body = (await response.body.json()) as { session?: { id?: string } };
      return response.statusCode === 201 ? body.session?.id : undefined;
    };

    // (a) creation throughput and latency
    const create = await runLoad('gateway+sessions+orders POST /v0/checkout/sessions', options, async () => (await createSession()) !== undefined);

    // (b) pay → completed event on the topic. Sessions first, so creation is not part of the figure.
    const sessionIds: string[] = [];
    let createErrors = 0;
    await inParallel(options.payments, PAY_CONCURRENCY, async () => {
      const id = await createSession().catch(() => undefined);
      if (id) sessionIds.push(id);
      else createErrors += 1;
    });
    if (createErrors > 0) console.log(`warning: ${createErrors} of ${options.payments} session creates failed`);

    const seenAt = new Map<string, number>();
    const topic = topicName(stack.env.sessions.TOPIC_PREFIX, TOPICS.sessionEvents);
    probe = await readTopic({
      kafka,
      topic,
      groupId: `bench-sessions-probe-${Date.now()}`,
      onMessage: (message) => {
        const now = performance.now();
        const key = message.key;
        if (!key || seenAt.has(key)) return; // the relay publishes at least once: keep the first sighting
        const value = JSON.parse(message.value || 'null') as { type?: string } | null;
        if (value?.type === 'checkout.session.completed') seenAt.set(key, now);
      },
    });
    await probe.joined; // the probe owns its partitions before the first payment is sent

    const sentAt = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    const payLatencies: number[] = [];
    let payErrors = 0;
    const payStarted = performance.now();
    await inParallel(sessionIds.length, PAY_CONCURRENCY, async (i) => {
      const id = sessionIds[i] as string;
      const started = performance.now();
      sentAt.set(id, started);
      try {
        const response = await pool.request({ method: 'POST', path: `/v0/test_helpers/checkout/sessions/${id}/pay`, headers, body: '{}' });
        const body = (await response.body.json()) as { session?: { status?: string } };
        answeredAt.set(id, performance.now());
        if (response.statusCode === 200 && body.session?.status === 'completed') payLatencies.push(performance.now() - started);
        else payErrors += 1;
      } catch {
        payErrors += 1;
      }
    });
    const paySeconds = (performance.now() - payStarted) / 1000;
    await eventually(() => sessionIds.every((id) => seenAt.has(id)), { deadlineMs: 60_000, intervalMs: 50, description: 'every completed event on the topic' }).catch((err: Error) =>
      console.log(`warning: ${err.message}; ${sessionIds.filter((id) => !seenAt.has(id)).length} events not seen`),
    );

    const eventLatencies = sessionIds.filter((id) => seenAt.has(id)).map((id) => (seenAt.get(id) as number) - (sentAt.get(id) as number));
    eventLatencies.sort((a, b) => a - b);
    payLatencies.sort((a, b) => a - b);
    const payRow: LoadResult = {
      label: `POST /v0/test_helpers/.../pay (concurrency ${PAY_CONCURRENCY})`,
      requests: payLatencies.length,
      errors: payErrors,
      seconds: paySeconds,
      throughput: payLatencies.length / paySeconds,
      p50: percentile(payLatencies, 50),
      p99: percentile(payLatencies, 99),
    };
    console.log(`\n${formatTable([create, payRow])}`);
    console.log(`\npay request sent → checkout.session.completed seen on ${topic}:`);
    console.log(
      `  ${eventLatencies.length} of ${sessionIds.length} payments: p50 ${ms(percentile(eventLatencies, 50))} ms, p99 ${ms(percentile(eventLatencies, 99))} ms, max ${ms(eventLatencies.at(-1) ?? Number.NaN)} ms`,
    );
    console.log(`  pay request itself (for reference): p50 ${ms(payRow.p50)} ms, p99 ${ms(payRow.p99)} ms, ${payErrors} errors`);
    const beforeAnswer = sessionIds.filter((id) => (seenAt.get(id) ?? Infinity) <= (answeredAt.get(id) ?? -Infinity)).length;
    console.log(`  events the probe saw before the pay request's answer arrived: ${beforeAnswer} of ${eventLatencies.length}`);
  } finally {
    await probe?.stop().catch(() => {});
    await pool.close();
    await stack.stop();
  }
}
