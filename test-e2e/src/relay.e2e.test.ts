import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhooks } from '@checkout/sdk';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { uniqueId } from './support/factories';

// D45 end to end: the real CLI processes (`npm run cli -- listen` / `trigger`) against the stack on loopback.
// The organization also has a real callback URL, so what the relay forwards can be compared with what the
// dispatcher delivered for the same event.

const DEADLINE = { deadlineMs: 30_000, intervalMs: 100 };
let stack: InProcessStack;
let receiver: WebhookReceiver;
const running: ChildProcess[] = [];

interface Cli {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exit: Promise<number | null>;
}

function cli(args: string[]): Cli {
  // Run from the repository root, where `npm run cli` runs it; no .stack.json is involved (explicit flags).
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const collect = (into: string[]) => (chunk: Buffer) => into.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout?.on('data', collect(stdout));
  child.stderr?.on('data', collect(stderr));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout, stderr, exit };
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({
    extraEnv: {
      gateway: { RATE_LIMIT_PER_WINDOW: '1000000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' },
      dispatcher: { SIGNING_SECRET_CACHE_MS: '1' },
    },
  });
});

afterAll(async () => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  await stack?.stop();
  await receiver?.close();
});

describe('npm run cli -- listen / trigger', () => {
  it("When a session is triggered while listen runs, then the local URL gets the delivery's headers, body and a valid signature, and one line per event is printed (D45)", async () => {
    const org = await stack.admin.createOrganizationWithKeys(uniqueId('Relay Org'));
    const real = `/real/${uniqueId('r')}`;
    const local = `/local/${uniqueId('l')}`;
    receiver.answer(real, ANSWER.ok);
    receiver.answer(local, ANSWER.ok);
    const { webhookSigningSecret: secret } = await stack.admin.call<{ webhookSigningSecret: string }>(
      'PATCH',
      `/organizations/${org.organizationId}/checkout-settings`,
      {
        mode: 'test',
        defaultCallbackUrl: receiver.url(real),
        webhookSigning: true,
      },
    );
    const common = ['--key', org.testKey, '--base-url', stack.gatewayUrl];

    const listen = cli([
      'listen',
      '--forward-to',
      receiver.url(local),
      '--secret',
      secret,
      '--interval-ms',
      '200',
      ...common,
    ]);
    await eventually(() => listen.stderr.some((l) => l.startsWith('Ready')), {
      ...DEADLINE,
      description: `listen to be ready (stderr: ${listen.stderr.join(' | ')})`,
    });

    const trigger = cli(['trigger', 'checkout.session.completed', ...common]);
    expect(await trigger.exit).toBe(0);
    expect(trigger.stdout.join('\n')).toMatch(/checkout\.session\.completed: session cs_test_\w+ is completed/);

    // Every new event is relayed, D49's order events too (as a merchant's endpoint would get them); the session's
    // completed event is the one that also has a real delivery to compare with.
    const relayed = await eventually(
      () => receiver.deliveries(local).find((r) => r.headers['x-service-event-type'] === 'checkout.session.completed'),
      { ...DEADLINE, description: 'the relayed checkout.session.completed' },
    );
    const delivered = await receiver.nextDelivery({ path: real, timeoutMs: 30_000 });
    expect(relayed.body).toBe(delivered.body);
    for (const name of [
      'content-type',
      'idempotency-key',
      'x-service-event-id',
      'x-service-delivery-id',
      'x-service-event-type',
      'user-agent',
      'webhook-id',
    ]) {
      expect(relayed.headers[name], name).toBe(delivered.headers[name]);
    }
    const event = webhooks.verify(relayed.body, relayed.headers, secret);
    expect(event.event).toBe('checkout.session.completed');

    const line = await eventually(() => listen.stdout.find((l) => l.includes(event.id)), {
      ...DEADLINE,
      description: 'the event line',
    });
    expect(line).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+checkout\\.session\\.completed\\s+${event.id}\\s+→ 200$`),
    );

    // The local endpoint's own answer is what the line reports.
    receiver.answer(local, ANSWER.error);
    const expired = cli(['trigger', 'checkout.session.expired', ...common]);
    expect(await expired.exit).toBe(0);
    const failedLine = await eventually(() => listen.stdout.find((l) => l.includes('checkout.session.expired')), {
      ...DEADLINE,
      description: 'the expired line',
    });
    expect(failedLine).toMatch(/→ 500$/);
    expect(listen.stdout.filter((l) => /\scheckout\.session\./.test(l))).toHaveLength(2);
    // The orders' events were relayed too, one line each: two orders created, one paid.
    await eventually(() => listen.stdout.filter((l) => /\sorder\.(created|paid)\s/.test(l)).length === 3, {
      ...DEADLINE,
      description: `the order events' lines (stdout: ${listen.stdout.join(' | ')})`,
    });

    listen.child.kill('SIGTERM');
    expect(await listen.exit).toBe(0);
  });

  it('When the key is a live key, then the CLI refuses it and exits non-zero (D45: test keys only)', async () => {
    const org = await stack.admin.createOrganizationWithKeys(uniqueId('Relay Live Org'));
    const run = cli(['trigger', 'checkout.session.completed', '--key', org.liveKey, '--base-url', stack.gatewayUrl]);
    expect(await run.exit).toBe(1);
    expect(run.stderr.join('\n')).toContain('test keys');
  });
});
