// `npm run bench -- broker-restart`: where a message's time goes while each of three brokers restarts in turn, as
// the rolling-deploy soak restarts them (controlled shutdown, start, every ISR whole again), without the services:
// our producer (acks=all, the outbox's) sends at a steady rate, two members of one group consume with our batch
// consumer, and every message's send → acknowledged and send → consumed times are kept by the phase it was sent in.
// The slowest are printed with what kafkajs logged around them, so a stall names its cause; with `--trace-slowest`,
// also the producer's own requests and answers from the send of each of the three slowest acknowledgements to it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { TOPICS, topicName } from '@checkout/contracts';
import { provisionKafka, startLocalKafkaCluster, waitFor, type LocalKafkaCluster } from '@checkout/engines';
import {
  createEventProducer,
  createKafka,
  runBatchConsumer,
  type EventProducer,
  type RunningConsumer,
} from '@checkout/kafka';
import { createLogger, type Logger } from '@checkout/logger';
import { createTopics } from '../../deploy/scripts/create-topics';
import { formatColumns, openLoop, percentile } from './load';

interface Sent {
  n: number;
  phase: string;
  sentAt: number;
  ackMs?: number;
  consumedMs?: number;
  /** Why the send failed (the services' outbox would send it again). */
  failure?: string;
}

interface LogLine {
  at: number;
  text: string;
}

interface KafkajsLine {
  msg?: string;
  kafkajs?: { broker?: string; correlationId?: number; error?: string };
}

/** kafkajs' log lines at `level` and above, each kept with its time as `format` words it. */
function capturingLogger(lines: LogLine[], level: 'warn' | 'trace', format: (line: KafkajsLine) => string) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      try {
        lines.push({ at: Date.now(), text: format(JSON.parse(chunk.toString()) as KafkajsLine) });
      } catch {
        // not a JSON line
      }
      done();
    },
  });
  return createLogger('bench-broker-restart', { level, destination: sink });
}

/** A warning or error of the producer's and consumers' (tallied by its text: no request ids). */
function warning({ msg, kafkajs }: KafkajsLine): string {
  const detail = [kafkajs?.error, kafkajs?.broker].filter(Boolean).join(' @ ');
  return `${msg ?? ''}${detail ? ` (${detail})` : ''}`;
}

/** A request or answer of the producer's (kafkajs' debug log): which broker, which request, what error. */
function request({ msg, kafkajs }: KafkajsLine): string {
  const id = kafkajs?.correlationId === undefined ? '' : `#${kafkajs.correlationId}`;
  return `${msg ?? ''} ${[kafkajs?.broker, id, kafkajs?.error].filter(Boolean).join(' ')}`.trim();
}

function parseMessage(raw: unknown): { ok: true; value: { n: number } } | { ok: false; error: string } {
  const n = (raw as { n?: unknown } | null)?.n;
  return typeof n === 'number' ? { ok: true, value: { n } } : { ok: false, error: 'no message number' };
}

interface BrokerRestartOptions {
  rate: number;
  steadySeconds: number;
  traceSlowest: boolean;
}

export async function runBrokerRestartBench(options: BrokerRestartOptions): Promise<void> {
  const runDir = await mkdtemp(join(tmpdir(), 'checkout-bench-broker-restart-'));
  let cluster: LocalKafkaCluster | undefined;
  const consumers: RunningConsumer[] = [];
  const log: LogLine[] = [];
  const logger = capturingLogger(log, 'warn', warning);
  const requests: LogLine[] = [];
  try {
    cluster = await startLocalKafkaCluster({ libs: await provisionKafka(), runDir, deadlineMs: 150_000, count: 3 });
    const prefix = `bench${Date.now().toString(36)}`;
    await createTopics({
      KAFKA_BROKERS: cluster.brokers.join(','),
      TOPIC_PREFIX: prefix,
      KAFKA_REPLICATION_FACTOR: '3',
      KAFKA_MIN_INSYNC_REPLICAS: '2',
      LOG_LEVEL: 'silent',
    });
    const topic = topicName(prefix, TOPICS.sessionEvents);
    const sent = new Map<number, Sent>();
    for (const member of ['a', 'b'])
      consumers.push(
        await startConsumer({ brokers: cluster.brokers, member, groupId: `${prefix}-group`, topic }, logger, sent),
      );
    const producer = createEventProducer(
      createKafka({
        brokers: cluster.brokers,
        clientId: 'bench-producer',
        ...(options.traceSlowest
          ? { logger: capturingLogger(requests, 'trace', request), logRequests: true }
          : { logger }),
      }),
    );
    await producer.connect();
    await sendThroughRestarts(cluster, { producer, topic, sent }, options);
    await producer.disconnect();
    const measured = [...sent.values()].filter((s) => s.phase !== 'warm-up');
    report(measured, log);
    if (options.traceSlowest) traceSlowest(measured, requests);
  } finally {
    await Promise.all(consumers.map((consumer) => consumer.stop().catch(() => {})));
    await cluster?.stop().catch(() => {});
    await rm(runDir, { recursive: true, force: true });
  }
}

/** One of the group's two members: a message's first consumption, by either, gives its record its send → consumed. */
function startConsumer(
  group: { brokers: string[]; member: string; groupId: string; topic: string },
  logger: Logger,
  sent: ReadonlyMap<number, Sent>,
): Promise<RunningConsumer> {
  const kafka = createKafka({ brokers: group.brokers, clientId: `bench-consumer-${group.member}`, logger });
  return runBatchConsumer({
    kafka,
    groupId: group.groupId,
    topics: [group.topic],
    fromBeginning: true,
    logger,
    parse: parseMessage,
    handleBatch: async (messages) => {
      const now = Date.now();
      for (const { value } of messages) {
        const record = sent.get(value.n);
        if (record && record.consumedMs === undefined) record.consumedMs = now - record.sentAt;
      }
      return { done: Promise.resolve() };
    },
  });
}

/**
 * Sends at the steady rate through the warm-up, a steady phase, and each broker's restart followed by a steady
 * phase, recording every message under the phase it was sent in; then waits for what was acknowledged to be consumed.
 */
async function sendThroughRestarts(
  cluster: LocalKafkaCluster,
  { producer, topic, sent }: { producer: EventProducer; topic: string; sent: Map<number, Sent> },
  options: BrokerRestartOptions,
): Promise<void> {
  let phase = 'warm-up';
  let sending = true;
  const sender = openLoop(
    options.rate,
    Number.MAX_SAFE_INTEGER,
    async (n) => {
      const record: Sent = { n, phase, sentAt: Date.now() };
      sent.set(n, record);
      await producer
        .send([{ topic, key: `k${n % 24}`, value: JSON.stringify({ n }) }])
        .then(() => (record.ackMs = Date.now() - record.sentAt))
        .catch((err: unknown) => (record.failure = err instanceof Error ? `${err.name}: ${err.message}` : String(err)));
    },
    () => !sending,
  );
  const steady = (label: string) => {
    phase = label;
    return new Promise((resolve) => setTimeout(resolve, options.steadySeconds * 1000));
  };
  await waitFor('the first message consumed', () => [...sent.values()].some((s) => s.consumedMs !== undefined), {
    deadlineMs: 60_000,
    intervalMs: 100,
  });
  await steady('steady');
  for (const node of cluster.nodes) {
    phase = `broker ${node.nodeId} restart`;
    await node.stop();
    await node.start();
    await waitFor('every ISR whole', async () => (await cluster.underReplicatedPartitions()) === 0, {
      deadlineMs: 120_000,
      intervalMs: 250,
    });
    await steady(`steady after broker ${node.nodeId}`);
  }
  sending = false;
  await sender;
  await waitFor(
    'every acknowledged message consumed',
    () => [...sent.values()].every((s) => s.ackMs === undefined || s.consumedMs !== undefined),
    {
      deadlineMs: 60_000,
      intervalMs: 250,
    },
  ).catch(() => console.log('  (some acknowledged messages were not consumed within 60 s)'));
}

/** How often each line was said. */
function tally(lines: readonly LogLine[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line.text, (counts.get(line.text) ?? 0) + 1);
  return counts;
}

function report(records: readonly Sent[], log: readonly LogLine[]): void {
  const phases = [...new Set(records.map((r) => r.phase))];
  const figures = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0
      ? ['—', '—', '—']
      : [percentile(sorted, 50), percentile(sorted, 99), sorted.at(-1) ?? Number.NaN].map((v) => v.toFixed(0));
  };
  console.log(`\nsend → acknowledged (acks=all) and send → consumed, ms, by the phase a message was sent in:`);
  console.log(
    formatColumns(
      ['phase', 'sent', 'ack p50', 'p99', 'max', 'consumed p50', 'p99', 'max', 'not acked'],
      phases.map((phase) => {
        const of = records.filter((r) => r.phase === phase);
        return [
          phase,
          String(of.length),
          ...figures(of.flatMap((r) => (r.ackMs === undefined ? [] : [r.ackMs]))),
          ...figures(of.flatMap((r) => (r.consumedMs === undefined ? [] : [r.consumedMs]))),
          String(of.filter((r) => r.ackMs === undefined).length),
        ];
      }),
    ),
  );
  const failures = tally(
    records.flatMap((r) => (r.failure ? [{ at: r.sentAt, text: `${r.phase}: ${r.failure}` }] : [])),
  );
  if (failures.size > 0) console.log('\nsends that failed, by phase and error:');
  for (const [text, count] of failures) console.log(`  ${count} × ${text.slice(0, 200)}`);
  const overall = tally(log);
  console.log(`
kafkajs said ${log.length} things at warn or above in the whole run${log.length > 0 ? ', most often:' : ''}`);
  for (const [text, count] of [...overall].sort((a, b) => b[1] - a[1]).slice(0, 8))
    console.log(`  ${count} × ${text.slice(0, 160)}`);
  const slowest = [...records].sort((a, b) => (b.consumedMs ?? 0) - (a.consumedMs ?? 0)).slice(0, 5);
  console.log('\nthe five slowest, with what kafkajs logged from their send to their consumption:');
  for (const r of slowest) {
    const until = r.sentAt + (r.consumedMs ?? 0);
    const counted = tally(log.filter((line) => line.at >= r.sentAt - 100 && line.at <= until + 100));
    console.log(`  #${r.n} ${r.phase}: acknowledged ${r.ackMs ?? '—'} ms, consumed ${r.consumedMs ?? '—'} ms`);
    for (const [text, count] of counted) console.log(`    ${count} × ${text.slice(0, 160)}`);
  }
}

/** The producer's requests and answers from the send of each of the three slowest acknowledgements to it. */
function traceSlowest(records: readonly Sent[], requests: readonly LogLine[]): void {
  const slowest = records
    .filter((r) => r.ackMs !== undefined)
    .sort((a, b) => (b.ackMs ?? 0) - (a.ackMs ?? 0))
    .slice(0, 3);
  for (const r of slowest) {
    console.log(
      `\n#${r.n} ${r.phase}, acknowledged after ${r.ackMs} ms; the producer's requests meanwhile (ms after the send):`,
    );
    const until = r.sentAt + (r.ackMs ?? 0);
    for (const line of requests.filter((l) => l.at >= r.sentAt && l.at <= until + 5))
      console.log(`  +${String(line.at - r.sentAt).padStart(5)}  ${line.text.slice(0, 160)}`);
  }
}
