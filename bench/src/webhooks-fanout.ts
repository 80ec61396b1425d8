// Scenario 7 of the webhooks bench (webhooks.ts), fan-out (D50): one merchant's webhooks to 4 endpoints at once,
// against 1, in a burst and paced, with one of the 4 hanging.
import { ANSWER, type WebhookReceiver } from '@checkout/testing';
import { percentile } from './load';
import { mark, type WebhookRun } from './webhooks-phases';
import { endpointEvent, latencies, paced, produce, registerEndpoint, waitUntil } from './webhooks-traffic';

/** The merchant whose 4 endpoints (receivers of their own, each subscribed to everything) scenario 7 fans out to. */
interface FanoutMerchant {
  organizationId: string;
  receivers: readonly WebhookReceiver[];
}

/**
 * 7a. Fan-out (D50): one merchant's burst to 1 webhook endpoint, then the same burst to 4: deliveries/s against the
 * single endpoint's, and commands per delivery.
 */
export async function measureFanoutBursts(run: WebhookRun): Promise<FanoutMerchant> {
  const { settings, dispatcher, gatewayToken, receivers } = run;
  const { burst } = settings;
  const single = { organizationId: 'org_fanout_single', mode: 'live' as const };
  const fanout = { organizationId: 'org_fanout', mode: 'live' as const };
  await registerEndpoint(dispatcher.url, gatewayToken, single, receivers[0]?.url('/single') as string);
  const fanoutReceivers = receivers.slice(0, 4);
  for (const r of fanoutReceivers) await registerEndpoint(dispatcher.url, gatewayToken, fanout, r.url('/fanout'));
  const one = await burstToEndpoints(run, '/single', receivers.slice(0, 1), single.organizationId);
  const four = await burstToEndpoints(run, '/fanout', fanoutReceivers, fanout.organizationId);
  await run.tally.skipCommands();
  const fanoutRatio = four.rate / one.rate;
  run.rows.push([
    `fan-out: ${burst} events to 4 endpoints (${burst * 4} deliveries) vs to 1 endpoint`,
    `${four.rate.toFixed(0)}/s${four.done ? '' : ' (incomplete)'} vs ${one.rate.toFixed(0)}/s${one.done ? '' : ' (incomplete)'}, ratio ${fanoutRatio.toFixed(2)}`,
    `${mark(fanoutRatio >= 0.8)} ≥ 0.8× one endpoint`,
    '—',
  ]);
  run.rows.push([
    'database commands per delivery (fan-out burst; 1 endpoint in brackets)',
    `${four.commands.toFixed(3)} (${one.commands.toFixed(3)})`,
    `${mark(four.commands <= 2)} ≤ 2`,
    '—',
  ]);
  return { organizationId: fanout.organizationId, receivers: fanoutReceivers };
}

/** One organization's burst to its endpoints on `targets`: deliveries/s, and database commands per delivery. */
async function burstToEndpoints(
  { settings, dispatcher, producer, topic }: WebhookRun,
  path: string,
  targets: readonly WebhookReceiver[],
  organizationId: string,
): Promise<{ rate: number; done: boolean; commands: number }> {
  const { burst } = settings;
  const events = Array.from({ length: burst }, endpointEvent(organizationId));
  const expected = burst * targets.length;
  const before = (await dispatcher.stats()).commands;
  const started = Date.now();
  await produce(producer, topic, events);
  const arrived = () => targets.reduce((n, r) => n + r.deliveries(path).length, 0);
  const done = await waitUntil(() => arrived() >= expected, 120_000);
  const rate = arrived() / ((Date.now() - started) / 1000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const commands = ((await dispatcher.stats()).commands - before) / expected;
  return { rate, done, commands };
}

/**
 * 7b. The 4 endpoints paced at a quarter of the rate (the same deliveries a second), all healthy, then with one of
 * them hanging: the healthy three's first-attempt p99 against all-healthy.
 */
export async function measureFanoutPaced(run: WebhookRun, merchant: FanoutMerchant): Promise<void> {
  const { rate } = run.settings;
  const fanoutReceivers = merchant.receivers;
  const fanoutHealthy = await paceToFanout(run, merchant);
  await waitUntil(() => latencies(fanoutReceivers, fanoutHealthy, '/fanout').length >= fanoutHealthy.size * 4, 60_000);
  const allHealthy = latencies(fanoutReceivers, fanoutHealthy, '/fanout');
  const hung = fanoutReceivers[3] as WebhookReceiver;
  const healthyThree = fanoutReceivers.slice(0, 3);
  hung.answer('/fanout', ANSWER.hang);
  const fanoutHanging = await paceToFanout(run, merchant);
  await waitUntil(() => latencies(healthyThree, fanoutHanging, '/fanout').length >= fanoutHanging.size * 3, 60_000);
  const threeWhileOneHangs = latencies(healthyThree, fanoutHanging, '/fanout');
  const [a99, t99] = [percentile(allHealthy, 99), percentile(threeWhileOneHangs, 99)];
  run.rows.push([
    `fan-out, 4 endpoints at ${rate / 4} events/s: the healthy three while one hangs (n=${threeWhileOneHangs.length}) vs all four healthy (n=${allHealthy.length})`,
    `p99 ${t99} ms vs ${a99} ms = ${(t99 / a99).toFixed(1)}× (p50 ${percentile(threeWhileOneHangs, 50)} vs ${percentile(allHealthy, 50)} ms)`,
    `${mark(t99 <= 2 * a99)} p99 ≤ 2× all-healthy`,
    '—',
  ]);
  // The hanging endpoint answers from now on; its backlog drains before the next scenario.
  hung.answer('/fanout', ANSWER.ok);
  await waitUntil(() => latencies([hung], fanoutHanging, '/fanout').length >= fanoutHanging.size, 60_000);
  await run.tally.notePeak('fan-out paced', (fanoutHealthy.size + fanoutHanging.size) * 4);
}

/** The fan-out merchant's events at a quarter of the rate: when each was acknowledged, by event id. */
async function paceToFanout(
  { settings, producer, topic }: WebhookRun,
  merchant: FanoutMerchant,
): Promise<Map<string, number>> {
  const producedAt = new Map<string, number>();
  await paced(
    producer,
    topic,
    [merchant.receivers[0]?.url('/fanout') as string],
    settings.rate / 4,
    settings.paceSeconds,
    producedAt,
    endpointEvent(merchant.organizationId),
  );
  return producedAt;
}
