import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@checkout/engines';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { TOPICS, topicName, type SessionEventV1 } from '@checkout/contracts';
import { TestProducer, buildSessionEvent, dispatcherEnv, dropDatabase, testKafka } from './support';
import { parseConfig, type Config } from '../../src/config';

// At least once, none lost (docs/engineering.md, messaging rules): the dispatcher runs as a real child
// process and is killed with SIGKILL in the middle of a burst; after a restart every event still reaches the
// receiver. What the dead process had in flight or queued in memory comes back through the recovery sweep
// (its claims lapse after WEBHOOK_CLAIM_TTL_MS), what it had not yet committed comes back from Kafka.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const EVENTS = 1_000;

let receiver: WebhookReceiver;
let producer: TestProducer;
let env: Record<string, string>;
let config: Config;
const children = new Set<ChildProcess>();

async function startChild(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/webhook-dispatcher/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // pino logs to stdout: keep the tail of both streams, since a failed start is explained only there.
  let output = '';
  const keep = (chunk: Buffer) => {
    if (process.env.CRASH_DEBUG) process.stderr.write(chunk);
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  children.add(child);
  child.once('exit', () => children.delete(child));
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`dispatcher exited with ${child.exitCode}:\n${output}`);
      const response = await fetch(`http://127.0.0.1:${env.PORT}/readyz`);
      return response.status === 200;
    },
    { deadlineMs: 60_000, intervalMs: 100, description: 'the dispatcher child to be ready' },
  );
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Slow enough that the burst is still going when the process dies.
  receiver.answer('/crash', ANSWER.slow(20));
  env = dispatcherEnv('crash', {
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_CLAIM_TTL_MS: '4000',
    WEBHOOK_RECOVERY_INTERVAL_MS: '1000',
  });
  config = parseConfig(env);
  producer = await TestProducer.connect(testKafka());
}, 120_000);

afterAll(async () => {
  for (const child of children) await kill9(child);
  await producer?.disconnect();
  await receiver?.close();
  if (config) await dropDatabase(config);
});

describe('Crash safety (at least once, none lost)', () => {
  it('When the dispatcher is killed with SIGKILL mid-burst and restarted, then every one of 1,000 events reaches the receiver', async () => {
    const first = await startChild();
    const topic = topicName(config.TOPIC_PREFIX, TOPICS.sessionEvents);
    const events: SessionEventV1[] = Array.from({ length: EVENTS }, () =>
      buildSessionEvent({ callbackUrl: receiver.url('/crash') }),
    );
    for (let i = 0; i < events.length; i += 100) await producer.sendEvents(topic, events.slice(i, i + 100));

    const received = () => new Set(receiver.deliveries('/crash').map((r) => String(r.headers['x-service-event-id'])));
    await eventually(() => received().size >= 150, {
      deadlineMs: 60_000,
      intervalMs: 5,
      description: 'some deliveries before the kill',
    });
    await kill9(first);
    const seenAtKill = received().size;
    expect(seenAtKill).toBeLessThan(EVENTS);

    await startChild();
    const progress = process.env.CRASH_DEBUG
      ? setInterval(
          () =>
            process.stderr.write(
              `received ${received().size} (requests ${receiver.deliveries('/crash').length}); at kill ${seenAtKill}\n`,
            ),
          2_000,
        )
      : undefined;
    await eventually(() => received().size === EVENTS, {
      deadlineMs: 150_000,
      intervalMs: 200,
      description: `all ${EVENTS} events after the restart`,
    }).catch((err: unknown) => {
      throw new Error(
        `${err instanceof Error ? err.message : String(err)}: ${received().size} arrived, ${seenAtKill} before the kill`,
      );
    });
    clearInterval(progress);
    const ids = received();
    for (const event of events) expect(ids.has(event.eventId)).toBe(true);
    // Duplicates are allowed (at least once); each was for an event of this burst.
    expect(receiver.deliveries('/crash').length).toBeGreaterThanOrEqual(EVENTS);
  }, 270_000);
});
