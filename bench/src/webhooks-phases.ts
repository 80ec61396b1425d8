// The webhooks bench's scenarios (numbered as in webhooks.ts; fan-out, 7, in webhooks-fanout.ts) and what they share:
// each adds its rows to the run's table, in the order webhooks.ts runs them, and drains what it leaves behind (a
// backlog, a hanging endpoint) before the next.
import type { EventProducer } from '@checkout/kafka';
import { ANSWER, buildSessionEvent, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { request } from 'undici';
import { sampleCpu, type CpuWindow } from './cpu';
import { percentile } from './load';
import type { DispatcherGroup } from './webhooks-dispatcher';
import { latencies, paced, produce, sessionEvent, waitUntil } from './webhooks-traffic';

/**
 * Ports of the one organization whose endpoints all hang (scenario 2b): enough to hold every in-flight slot without
 * fairness.
 */
const TARPIT_PORTS = 32;

/** The figures before the dispatcher rework of 2026-11, measured on a clean clone (2 cores). */
const BEFORE = {
  throughput: '41/s (ratio 0.015)',
  healthy: 'p50 11 ms, p99 254 ms',
  mixed: 'p50 17 ms, p99 764 ms (3.0×)',
};

export const mark = (ok: boolean) => (ok ? '✓' : '✗');
const mib = (bytes: number) => bytes / 1024 / 1024;

/** A row of the bench's table: the figure, its value now, its target, the figure before the rework. */
export type Row = [string, string, string, string];

export interface WebhookSettings {
  burst: number;
  rate: number;
  paceSeconds: number;
  receiverCount: number;
  timeoutMs: number;
  expiring: number;
  expiryEndpoints: number;
  replicas: number;
}

/**
 * The dispatcher's peak RSS after each scenario (which one grows it), and its database commands per webhook delivered
 * in each (retries, claims and sweeps included).
 */
export class DispatcherTally {
  readonly peaks: string[] = [];
  readonly commandRates: string[] = [];
  private commandsSoFar = 0;

  constructor(private readonly dispatcher: DispatcherGroup) {}

  /** The commands so far belong to no scenario (warm-up, endpoint registrations, bursts counted on their own). */
  async skipCommands(): Promise<void> {
    this.commandsSoFar = (await this.dispatcher.stats()).commands;
  }

  /** Notes the scenario's peak RSS and commands per delivery, and returns the latter. */
  async notePeak(scenario: string, deliveries: number): Promise<number> {
    const stats = await this.dispatcher.stats();
    const perDelivery = (stats.commands - this.commandsSoFar) / Math.max(1, deliveries);
    this.peaks.push(`${scenario} ${mib(stats.rss).toFixed(0)}`);
    this.commandRates.push(`${scenario} ${perDelivery.toFixed(3)}`);
    this.commandsSoFar = stats.commands;
    return perDelivery;
  }
}

/** What every scenario works with, and where it writes its figures. */
export interface WebhookRun {
  settings: WebhookSettings;
  dispatcher: DispatcherGroup;
  producer: EventProducer;
  topic: string;
  gatewayToken: string;
  receivers: readonly WebhookReceiver[];
  /** Receivers the scenarios start on the way, closed with the others at the end. */
  endpoints: WebhookReceiver[];
  rows: Row[];
  /** CPU per delivery of every process (dispatcher, engines, this one: producer and receivers), by scenario. */
  cpuWindows: CpuWindow[];
  tally: DispatcherTally;
}

/** Topic metadata, connections and JIT, not counted. */
export async function warmUp({ producer, topic, receivers }: WebhookRun): Promise<void> {
  await produce(
    producer,
    topic,
    receivers.map((r) => sessionEvent(r.url('/warmup'))),
  );
  await waitUntil(() => receivers.every((r) => r.deliveries('/warmup').length > 0), 30_000);
}

/** 1. Throughput of a burst, and the same number of plain undici POSTs to the same receivers. */
export async function measureBurst(run: WebhookRun): Promise<void> {
  const { burst } = run.settings;
  const dispatched = await deliverBurst(run);
  const baselineRate = await postPlainly(run, dispatched.body);
  const ratio = dispatched.rate / baselineRate;
  run.rows.push([
    `burst throughput (${burst} events)`,
    `${dispatched.rate.toFixed(0)}/s${dispatched.completed ? '' : ' (incomplete)'}, undici ${baselineRate.toFixed(0)}/s, ratio ${ratio.toFixed(2)}`,
    `${mark(ratio >= 0.7)} ≥ 0.7× undici`,
    BEFORE.throughput,
  ]);
  run.rows.push([
    `database commands per delivery (burst, all first attempts succeed)`,
    dispatched.commandsPerDelivery.toFixed(3),
    `${mark(dispatched.commandsPerDelivery <= 2)} ≤ 2`,
    '≥ 4 (insert event, insert delivery, update)',
  ]);
}

/** The burst through the dispatcher; `body`: a webhook's, for the plain POSTs to send the same. */
async function deliverBurst(
  run: WebhookRun,
): Promise<{ rate: number; completed: boolean; commandsPerDelivery: number; body: string }> {
  const { settings, receivers, cpuWindows } = run;
  const { burst } = settings;
  const burstEvents = Array.from({ length: burst }, (_, i) =>
    sessionEvent(receivers[i % receivers.length]?.url('/burst') as string),
  );
  await run.tally.skipCommands();
  const burstStarted = Date.now();
  const burstCpu = sampleCpu();
  await produce(run.producer, run.topic, burstEvents);
  const delivered = () => receivers.reduce((n, r) => n + r.deliveries('/burst').length, 0);
  const completed = await waitUntil(() => delivered() >= burst, 120_000);
  const rate = delivered() / ((Date.now() - burstStarted) / 1000);
  // The last results are recorded just after the last arrival.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const commandsPerDelivery = await run.tally.notePeak('burst', burst);
  cpuWindows.push({ label: 'burst delivery', operations: burst, before: burstCpu, after: sampleCpu() });
  return { rate, completed, commandsPerDelivery, body: JSON.stringify(burstEvents[0]?.body) };
}

/** The burst's number of POSTs of `body` with undici, 64 at a time, to the same receivers: POSTs a second. */
async function postPlainly({ settings, receivers, cpuWindows }: WebhookRun, body: string): Promise<number> {
  const { burst } = settings;
  const baselineStarted = Date.now();
  const baselineCpu = sampleCpu();
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < burst) {
        const i = next++;
        const response = await request(receivers[i % receivers.length]?.url('/baseline') as string, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
        await response.body.dump();
      }
    }),
  );
  const baselineRate = burst / ((Date.now() - baselineStarted) / 1000);
  cpuWindows.push({ label: 'plain undici POST', operations: burst, before: baselineCpu, after: sampleCpu() });
  return baselineRate;
}

/** 2. First-attempt latency at a steady rate, all endpoints healthy: its p99, the bar of the scenarios after it. */
export async function measureSteady(run: WebhookRun): Promise<number> {
  const { settings, producer, topic, receivers } = run;
  const { rate, paceSeconds } = settings;
  const healthyProduced = new Map<string, number>();
  const healthyEvents = await paced(
    producer,
    topic,
    receivers.map((r) => r.url('/steady')),
    rate,
    paceSeconds,
    healthyProduced,
  );
  await waitUntil(
    () => receivers.reduce((n, r) => n + r.deliveries('/steady').length, 0) >= healthyEvents.length,
    60_000,
  );
  const healthy = latencies(receivers, healthyProduced, '/steady');
  const [h50, h99] = [percentile(healthy, 50), percentile(healthy, 99)];
  run.rows.push([
    `first attempt after Kafka, ${rate}/s, all healthy (n=${healthy.length})`,
    `p50 ${h50} ms, p99 ${h99} ms`,
    `${mark(h50 <= 10)} p50 ≤ 10 ms, ${mark(h99 <= 50)} p99 ≤ 50 ms`,
    BEFORE.healthy,
  ]);

  await run.tally.notePeak('steady', healthyEvents.length);
  return h99;
}

/**
 * 2b. One merchant's endpoints all hang (an organization with tarpits on many ports, half of them its test mode's and
 * half its live mode's, half the events) while another organization's live webhooks go to healthy endpoints: the
 * live p99 vs (2). With a share per organization and mode, the hanging one held both shares: every slot.
 */
export async function measureOneOrganizationHanging(run: WebhookRun, healthyP99: number): Promise<void> {
  const { settings, producer, topic, receivers } = run;
  const tarpits = await Promise.all(Array.from({ length: TARPIT_PORTS }, () => startWebhookReceiver()));
  run.endpoints.push(...tarpits);
  for (const t of tarpits) t.answer('/tarpit', ANSWER.hang);
  const tarpitUrls = tarpits.map((t) => t.url('/tarpit'));
  const hostileModes = new Map(tarpitUrls.map((url, i) => [url, i % 2 === 0 ? ('test' as const) : ('live' as const)]));
  const liveUrls = receivers.map((r) => r.url('/fair'));
  const fairProduced = new Map<string, number>();
  const fairEvents = await paced(
    producer,
    topic,
    tarpitUrls.flatMap((tarpit, i) => [liveUrls[i % liveUrls.length] as string, tarpit]),
    settings.rate,
    settings.paceSeconds,
    fairProduced,
    (url) =>
      buildSessionEvent({
        callbackUrl: url,
        organizationId: hostileModes.has(url) ? 'org_hostile' : 'org_live',
        mode: hostileModes.get(url) ?? 'live',
      }),
  );
  const liveExpected = fairEvents.filter((e) => !hostileModes.has(e.callbackUrl ?? '')).length;
  await waitUntil(() => receivers.reduce((n, r) => n + r.deliveries('/fair').length, 0) >= liveExpected, 60_000);
  const fair = latencies(receivers, fairProduced, '/fair');
  const [f50, f99] = [percentile(fair, 50), percentile(fair, 99)];
  const tarpitsHeld = tarpits.reduce((n, t) => n + t.deliveries('/tarpit').length, 0);
  run.rows.push([
    `another organization's live webhooks while one organization's ${TARPIT_PORTS} endpoints (${TARPIT_PORTS / 2} test, ${TARPIT_PORTS / 2} live) all hang, n=${fair.length}`,
    `p50 ${f50} ms, p99 ${f99} ms = ${(f99 / healthyP99).toFixed(1)}× all-healthy p99 (2); the hanging organization had ${tarpitsHeld} attempts open at once`,
    `${mark(f99 <= 2 * healthyP99)} p99 ≤ 2× all-healthy`,
    '—',
  ]);
  // Let the tarpits' backlog drain (answered from now on) so that it does not weigh on the next scenario.
  for (const t of tarpits) t.answer('/tarpit', ANSWER.ok);
  const hostileCount = fairEvents.length - liveExpected;
  await waitUntil(() => tarpits.reduce((n, t) => n + t.deliveries('/tarpit').length, 0) >= hostileCount, 60_000);
  await run.tally.notePeak('one organization hanging', fairEvents.length);
}

/** 3. Half of the endpoints hang (each attempt times out after timeoutMs); healthy endpoints' latency meanwhile. */
export async function measureHalfHanging(run: WebhookRun, healthyP99: number): Promise<void> {
  const { settings, producer, topic, receivers } = run;
  const half = Math.floor(receivers.length / 2);
  const hanging = receivers.slice(0, half);
  const fine = receivers.slice(half);
  for (const r of hanging) r.answer('/mixed', ANSWER.hang);
  const mixedProduced = new Map<string, number>();
  const mixedEvents = await paced(
    producer,
    topic,
    receivers.map((r) => r.url('/mixed')),
    settings.rate,
    settings.paceSeconds,
    mixedProduced,
  );
  const fineUrls = new Set(fine.map((r) => r.url('/mixed')));
  const expectedHealthy = mixedEvents.filter((e) => fineUrls.has(e.callbackUrl ?? '')).length;
  await waitUntil(() => fine.reduce((n, r) => n + r.deliveries('/mixed').length, 0) >= expectedHealthy, 60_000);
  const mixed = latencies(fine, mixedProduced, '/mixed');
  const [m50, m99] = [percentile(mixed, 50), percentile(mixed, 99)];
  run.rows.push([
    `healthy half while half time out (${settings.timeoutMs} ms), n=${mixed.length}`,
    `p50 ${m50} ms, p99 ${m99} ms = ${(m99 / healthyP99).toFixed(1)}× all-healthy p99`,
    `${mark(m99 <= 2 * healthyP99)} p99 ≤ 2× all-healthy`,
    BEFORE.mixed,
  ]);
  for (const r of hanging) r.answer('/mixed', ANSWER.ok);
  await run.tally.notePeak('half hanging', mixedEvents.length);
}

/** 4. Sessions expiring at once, to many distinct endpoints (host:port each). */
export async function measureExpiry(run: WebhookRun): Promise<void> {
  const { settings, endpoints } = run;
  const { expiring, expiryEndpoints } = settings;
  endpoints.push(...(await Promise.all(Array.from({ length: expiryEndpoints }, () => startWebhookReceiver()))));
  const expiredEvents = Array.from({ length: expiring }, (_, i) =>
    sessionEvent(endpoints[i % endpoints.length]?.url('/expired') as string, 'checkout.session.expired'),
  );
  const perEndpoint = expiring / expiryEndpoints;
  const expiryStarted = Date.now();
  const expiryCpu = sampleCpu();
  await produce(run.producer, run.topic, expiredEvents);
  const arrived = () => endpoints.reduce((n, r) => n + r.deliveries('/expired').length, 0);
  // Fair share: when half of all webhooks have arrived, the worst-served endpoint has had at least a quarter of its
  // own.
  await waitUntil(() => arrived() >= expiring / 2, 30_000);
  const worstShareAtHalf = Math.min(...endpoints.map((r) => r.deliveries('/expired').length)) / perEndpoint;
  const allArrived = await waitUntil(() => arrived() >= expiring, 60_000);
  const expirySeconds = (Date.now() - expiryStarted) / 1000;
  run.cpuWindows.push({ label: 'expiry delivery', operations: expiring, before: expiryCpu, after: sampleCpu() });
  run.rows.push([
    `${expiring} checkout.session.expired to ${expiryEndpoints} endpoints (produced onto the topic)`,
    `all delivered in ${expirySeconds.toFixed(1)} s${allArrived ? '' : ' (incomplete)'}; worst endpoint at half-time ${(worstShareAtHalf * 100).toFixed(0)} % of its share`,
    `${mark(allArrived && expirySeconds <= 30)} ≤ 30 s, ${mark(worstShareAtHalf >= 0.25)} worst ≥ 25 %`,
    '—',
  ]);
}

/** 5. Memory through all of it, with the commands per event of each scenario. */
export async function measureMemory(run: WebhookRun): Promise<void> {
  const { settings, tally } = run;
  const { replicas } = settings;
  await tally.notePeak('expiry', settings.expiring);
  const { rss, peakHeapTotal, peakHeapUsed, peakExternal, heap } = await run.dispatcher.stats(true);
  run.rows.push([
    'database commands per event, by scenario (all commands, sweeps included)',
    tally.commandRates.join(', '),
    '',
    '—',
  ]);
  run.rows.push([
    replicas > 1
      ? `peak RSS of the largest of ${replicas} dispatcher replicas (whole bench)`
      : 'dispatcher peak RSS (whole bench)',
    `${mib(rss).toFixed(0)} MiB (peak after each scenario, MiB: ${tally.peaks.join(', ')}; at the peak V8 heap ${mib(peakHeapTotal).toFixed(0)} MiB reserved, ${mib(peakHeapUsed).toFixed(0)} in use, external ${mib(peakExternal).toFixed(0)}; live heap after a full GC at the end ${mib(heap).toFixed(0)})`,
    `${mark(mib(rss) <= 200)} ≤ 200 MiB`,
    '—',
  ]);
}
