import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Checkout } from '@checkout/sdk';
import {
  listedBroadcast,
  routedFilters,
  RUNTIME_SHARDING,
  targetOf,
  type ShardingDeclaration,
  type Target,
} from '@checkout/mongo';
import { CommandLog } from '@checkout/mongo/testing';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { GATEWAY_SHARDING } from '@checkout/gateway/indexes';
import { ORDER_SHARDING } from '@checkout/orders/indexes';
import { SESSION_SHARDING } from '@checkout/sessions/indexes';
import { WEBHOOK_SHARDING } from '@checkout/webhook-dispatcher/indexes';
import { startStack, type InProcessStack, type ServiceName } from './support/stack';
import { buildOrderInput, buildSessionInput, uniqueId } from './support/factories';
import { payOnHostedPage } from './support/hosted-page';

// Would every request stay on one shard? One merchant's journey through the gateway (orders, sessions, a payment
// on the hosted page and one by the test helper, a refund, webhook endpoints, events, a redelivery, the dashboard's
// pages, the balance and a report) with the driver's command monitoring on every service's clients. Each command's
// filter (each inserted document) is judged against its collection's shard key as its store/indexes.ts declares it
// (libs/mongo's shardedBy): one shard, the merchant's range of a ranged key, or every shard. A command that would go
// to every shard fails the test unless its declaration lists it with its reason (a sweep, a relay, a consumer's
// catch-up); the share of each per collection is printed. docs/operations.md, "Past one replica set".

const SHARDING: Record<ServiceName, readonly ShardingDeclaration[]> = {
  gateway: GATEWAY_SHARDING,
  orders: ORDER_SHARDING,
  sessions: SESSION_SHARDING,
  'webhook-dispatcher': WEBHOOK_SHARDING,
};
const logs: Record<ServiceName, CommandLog> = {
  gateway: new CommandLog(),
  orders: new CommandLog(),
  sessions: new CommandLog(),
  'webhook-dispatcher': new CommandLog(),
};
const DEADLINE = { deadlineMs: 30_000, intervalMs: 200 };

let stack: InProcessStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack(
    {
      extraEnv: {
        gateway: {
          RATE_LIMIT_PER_WINDOW: '1000000',
          RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
          CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
        },
        // The ledger's sweep and the report poll run often, so the balance and the report come within the test.
        orders: { BALANCE_SWEEP_INTERVAL_MS: '200', REPORT_POLL_INTERVAL_MS: '200' },
      },
    },
    undefined,
    { startWith: (name, start) => logs[name].watch(start) },
  );
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

/** Logs in through a login link as a browser does (its page, then its button) and reads each dashboard page. */
async function readDashboard(client: Checkout, eventId: string): Promise<number[]> {
  const { url } = await client.dashboard.loginLinks.create();
  const page = await request(url);
  const html = await page.body.text();
  const nonce = String(page.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  const proof = /name="proof" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const login = await request(url, {
    method: 'POST',
    headers: { cookie: nonce, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ proof }).toString(),
  });
  await login.body.text();
  const session = String(login.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  const pages = ['', '/balance', '/orders', '/sessions', '/events', `/events/${eventId}`, '/webhook_endpoints'];
  const statuses: number[] = [];
  for (const path of pages) {
    const answer = await request(`${stack.gatewayUrl}/dashboard${path}`, { headers: { cookie: session } });
    await answer.body.text();
    statuses.push(answer.statusCode);
  }
  return [login.statusCode, ...statuses];
}

async function merchantJourney(): Promise<void> {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId('Shards'));
  const client = new Checkout(org.testKey, { baseUrl: stack.gatewayUrl });
  await client.checkoutSettings.update({ displayName: 'Shard Shop' });
  const endpoint = await client.webhookEndpoints.create({ url: receiver.url('/endpoint'), enabledEvents: ['*'] });
  await client.webhookEndpoints.update(endpoint.id, { description: 'all events' });
  await client.webhookEndpoints.list().toArray();

  const email = `${uniqueId('buyer')}@example.com`;
  const order = await client.orders.create({
    ...buildOrderInput({ customer: { email } }),
    externalId: uniqueId('ext'),
  } as Parameters<Checkout['orders']['create']>[0]);
  await client.orders.retrieve(order.id);
  await client.orders.update(order.id, { metadata: { note: 'edited' } });
  await client.orders.list({ limit: 5 }).toArray();
  await client.orders.cancel((await client.orders.create(buildOrderInput() as never)).id);

  const sessionInput = { ...buildSessionInput(), callbackUrl: receiver.url('/callback') } as never;
  const onPage = await client.checkoutSessions.create(sessionInput);
  await client.checkoutSessions.retrieve(onPage.id);
  expect(await payOnHostedPage(stack.checkoutBaseUrl, onPage.id, '4242424242424242')).toBeLessThan(400);
  const byHelper = await client.checkoutSessions.create(sessionInput, { idempotencyKey: uniqueId('idem') });
  await client.checkoutSessions.update(byHelper.id, { sessionData: { cart: 'c-1' } });
  await client.testHelpers.checkoutSessions.pay(byHelper.id);
  await eventually(() => receiver.deliveries('/callback').length >= 2 || undefined, DEADLINE);

  const paidOrder = (await client.checkoutSessions.retrieve(byHelper.id)).order.id;
  const refund = await client.refunds.create(paidOrder, { amount: 100 });
  await client.refunds.retrieve(refund.id);
  await client.refunds.list(paidOrder).toArray();

  const [event] = await client.events.list({ sessionId: byHelper.id }).toArray();
  if (!event) throw new Error('no event of the paid session');
  await client.events.retrieve(event.id);
  await client.events.list({ limit: 5 }).toArray();
  await client.events.redeliver(event.id);
  expect(await readDashboard(client, event.id)).toEqual([303, 200, 200, 200, 200, 200, 200, 200]);

  await eventually(async () => (await client.balanceTransactions.list().toArray()).length >= 2 || undefined, DEADLINE);
  await client.balance.retrieve();
  const now = Date.now();
  const report = await client.reports.create({
    type: 'orders',
    createdAfter: new Date(now - 3_600_000),
    createdBefore: new Date(now + 60_000),
  });
  await eventually(
    async () => (await client.reports.retrieve(report.id)).status === 'succeeded' || undefined,
    DEADLINE,
  );
  // Its rows are what was recorded a settle margin before the run (D52): the file is read, whatever it holds.
  expect(await client.reports.downloadFile(report.id)).toMatch(/^id,externalId,/);
}

/** The share of each target per collection, as a Markdown table (docs/operations.md, "Shard keys"). */
function shareTable(rows: readonly Row[]): string {
  const lines = [
    "| service | collection | commands | one shard | merchant's range | listed: every shard | unlisted |",
    '|---|---|--:|--:|--:|--:|--:|',
  ];
  for (const { service, collection, counts } of rows) {
    const total = counts.shard + counts.range + counts.listed + counts.broadcast;
    const share = (n: number) => `${Math.round((100 * n) / total)} %`;
    lines.push(
      `| ${service} | \`${collection}\` | ${total} | ${share(counts.shard)} | ${share(counts.range)} | ` +
        `${share(counts.listed)} | ${counts.broadcast} |`,
    );
  }
  return lines.join('\n');
}

interface Row {
  service: ServiceName;
  collection: string;
  counts: Record<Target | 'listed', number>;
}

describe('shard targeting of a merchant journey', () => {
  it('When one merchant runs orders, sessions, payments, a refund, endpoints, events and the dashboard, then every command carries its shard key or is a listed broadcast', async () => {
    await merchantJourney();
    const rows = new Map<string, Row>();
    const unlisted: string[] = [];
    for (const service of Object.keys(logs) as ServiceName[]) {
      const declarations = [...SHARDING[service], ...RUNTIME_SHARDING];
      for (const { commandName, command } of logs[service].commands) {
        const routed = routedFilters(commandName, command);
        if (!routed) continue;
        const declared = declarations.find((d) => d.collection === routed.collection);
        if (!declared) {
          unlisted.push(`${service}: ${routed.collection} has no sharding declared`);
          continue;
        }
        const key = `${service}/${routed.collection}`;
        const row = rows.get(key) ?? {
          service,
          collection: routed.collection,
          counts: { shard: 0, range: 0, broadcast: 0, listed: 0 },
        };
        rows.set(key, row);
        for (const filter of routed.filters) {
          const target = targetOf(declared.key, filter);
          if (target !== 'broadcast') row.counts[target] += 1;
          else if (listedBroadcast(declared, commandName, filter)) row.counts.listed += 1;
          else {
            row.counts.broadcast += 1;
            unlisted.push(
              `${service}: ${commandName} ${routed.collection} ${JSON.stringify(Object.keys(filter).sort())}`,
            );
          }
        }
      }
    }
    console.log(
      shareTable(
        [...rows.values()].sort((a, b) => `${a.service}/${a.collection}`.localeCompare(`${b.service}/${b.collection}`)),
      ),
    );
    expect([...new Set(unlisted)]).toEqual([]);
    // The journey reached every service's main collections.
    expect([...rows.keys()]).toEqual(
      expect.arrayContaining([
        'orders/orders',
        'sessions/sessions',
        'webhook-dispatcher/events',
        'gateway/dashboard_sessions',
      ]),
    );
  });
});
