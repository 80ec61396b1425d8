import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSdk } from '@checkout/sdk/build';
import { startStack, type InProcessStack } from './support/stack';
import { uniqueId } from './support/factories';

// @checkout/sdk as a merchant gets it: built to JavaScript with its declarations (libs/sdk/build.ts), packed with
// `npm pack`, installed from the tarball into a fresh Node project outside the repository (its one dependency, zod,
// from the registry), and used there: a journey against this stack in ESM, a require() in CommonJS, and a TypeScript
// file type-checked against the installed declarations alone.

const run = promisify(execFile);
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

let stack: InProcessStack;
let project: string;
let key: string;

// Plain JavaScript, as a merchant's Node service would hold it: no loader, no workspace.
const JOURNEY = `
import { createServer } from 'node:http';
import { Checkout, isCheckoutApiError } from '@checkout/sdk';

const checkout = new Checkout(process.env.CHECKOUT_KEY, { baseUrl: process.env.CHECKOUT_URL });
const report = {};

// A webhook endpoint of this project's own: a local server that verifies every delivery it gets.
const received = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    try {
      received.push(checkout.webhooks.verify(raw, req.headers, endpoint.secret));
      res.writeHead(200).end('ok');
    } catch (err) {
      received.push({ error: err.name });
      res.writeHead(400).end('bad signature');
    }
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const endpoint = await checkout.webhookEndpoints.create({
  url: 'http://127.0.0.1:' + server.address().port + '/webhooks',
  enabledEvents: ['checkout.session.completed'],
  description: 'journey',
});
report.endpoint = { id: endpoint.id, hasSecret: endpoint.secret.startsWith('whsec_') };

const session = await checkout.checkoutSessions.create({
  items: [{ name: 'Latte', quantity: 2, unitPrice: 450 }],
  externalId: process.env.EXTERNAL_ID,
});
const paid = await checkout.testHelpers.checkoutSessions.pay(session.id);
report.session = { id: session.id, status: paid.status };

const deadline = Date.now() + 30_000;
while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
report.delivery = received[0] && !received[0].error ? { event: received[0].event, sessionId: received[0].session.id } : received[0];

for (let i = 0; i < 3; i += 1) await checkout.orders.create({ items: [{ name: 'Item ' + i, quantity: 1, unitPrice: 100 + i }] });
const seen = [];
for await (const order of checkout.orders.list({ limit: 2 })) seen.push(order.id);
report.orders = { seen: seen.length, distinct: new Set(seen).size, firstPage: (await checkout.orders.list({ limit: 2 })).pagination };

try {
  await checkout.webhookEndpoints.retrieve('we_test_unknown');
} catch (err) {
  report.typedError = isCheckoutApiError(err, 'WEBHOOK_ENDPOINT_NOT_FOUND') ? err.code : String(err);
}
server.close();
console.log(JSON.stringify(report));
`;

// The declarations, checked by tsc in the project that installed the package (no path into the repository).
const TYPED = `
import { Checkout, type WebhookEndpointWithSecret, type Order, type WebhookEvent } from '@checkout/sdk';

const checkout = new Checkout('sk_test_x', { baseUrl: 'http://127.0.0.1:1' });
export async function typed(): Promise<string> {
  const endpoint: WebhookEndpointWithSecret = await checkout.webhookEndpoints.create({ url: 'https://x.example', enabledEvents: ['*'] });
  const order: Order = await checkout.orders.retrieve('ord_test_x');
  const event: WebhookEvent = checkout.webhooks.verify('{}', {}, endpoint.secret);
  const total: number = order.amounts.total;
  // @ts-expect-error an unknown event type is refused by the declarations
  await checkout.webhookEndpoints.create({ url: 'https://x.example', enabledEvents: ['order.shipped'] });
  return event.event + total;
}
`;

beforeAll(async () => {
  stack = await startStack();
  key = (await stack.admin.createOrganizationWithKeys(uniqueId('SDK package'))).testKey;
  project = await mkdtemp(join(tmpdir(), 'checkout-sdk-merchant-'));
  const dist = await buildSdk();
  await run('npm', ['pack', dist, '--pack-destination', project], { cwd: project });
  const tarball = (await readdir(project)).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack made no tarball');
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'merchant-app', version: '1.0.0', private: true, type: 'module' }),
  );
  // The registry gives zod; nothing else is looked for outside the tarball.
  await run('npm', ['install', '--no-audit', '--no-fund', `./${tarball}`], { cwd: project, timeout: 180_000 });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('@checkout/sdk installed from its tarball in a project outside the repository', () => {
  it('When the package is installed, then it holds built JavaScript and declarations only, and depends on nothing from the workspace', async () => {
    const installed = join(project, 'node_modules/@checkout/sdk');
    expect((await readdir(installed)).sort()).toEqual(
      ['README.md', 'index.cjs', 'index.d.cts', 'index.d.ts', 'index.js', 'package.json'].sort(),
    );
    const manifest = JSON.parse(
      (
        await run('node', ['-p', 'JSON.stringify(require("./node_modules/@checkout/sdk/package.json"))'], {
          cwd: project,
        })
      ).stdout,
    ) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).toEqual(['zod']);
    const { stdout } = await run('grep', ['-c', '@checkout/', join(installed, 'index.js')]).catch(() => ({
      stdout: '0',
    }));
    expect(stdout.trim()).toBe('0');
  });

  it('When a merchant journey runs there (ESM): a test-mode session is created and paid, an endpoint registered, a delivery verified, orders paged through', async () => {
    await writeFile(join(project, 'journey.mjs'), JOURNEY);
    const { stdout } = await run('node', ['journey.mjs'], {
      cwd: project,
      timeout: 90_000,
      env: { ...process.env, CHECKOUT_KEY: key, CHECKOUT_URL: stack.gatewayUrl, EXTERNAL_ID: uniqueId('journey') },
    });
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, any>;
    expect(report.endpoint).toEqual({ id: expect.stringMatching(/^we_test_/), hasSecret: true });
    expect(report.session.status).toBe('completed');
    expect(report.delivery).toEqual({ event: 'checkout.session.completed', sessionId: report.session.id });
    expect(report.orders.seen).toBeGreaterThanOrEqual(4);
    expect(report.orders.distinct).toBe(report.orders.seen);
    expect(report.orders.firstPage).toMatchObject({ page: 1, limit: 2, hasMore: true });
    expect(report.typedError).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
  });

  it('When it is required from CommonJS, then the same client is there', async () => {
    await writeFile(
      join(project, 'check.cjs'),
      "const sdk = require('@checkout/sdk'); console.log(typeof sdk.Checkout, typeof sdk.webhooks.verify, typeof new sdk.Checkout('sk_test_x').webhookEndpoints.create);",
    );
    const { stdout } = await run('node', ['check.cjs'], { cwd: project });
    expect(stdout.trim()).toBe('function function function');
  });

  it('When TypeScript code uses it, then the installed declarations type-check on their own, and refuse an unknown event type', async () => {
    await writeFile(join(project, 'typed.ts'), TYPED);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          types: [],
          skipLibCheck: false,
        },
        files: ['typed.ts'],
      }),
    );
    const result = await run('node', [TSC, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (err: { stdout?: string; message?: string }) => ({ stdout: err.stdout ?? err.message ?? 'tsc failed' }),
    );
    expect(result.stdout).toBe('');
  });
});
