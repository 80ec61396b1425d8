import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '@checkout/engines';
import { Checkout, CheckoutApiError } from '@checkout/sdk';
import { AdminClient } from '@checkout/testing';
import { startClusterStack, type ClusterStack } from '../../scripts/lib/cluster-stack';
import { METHODS, representationHeaders, sendOnOneConnection, shuffled, type Method } from './framing';

// The edge behind the load balancer (the second audit), on the local cluster of `npm start -- --replicas 2`: two
// replicas of every service behind HAProxy. What a client gets through HAProxy must be what it gets from a
// replica directly: a 2 MB body is 413 PAYLOAD_TOO_LARGE for the SDK (undici's fetch) too, not "other side
// closed"; wrong operator tokens from one caller behind the load balancer's shared address lock no operator out;
// and every method, in any order on one keep-alive connection, gets a well-framed answer, HEAD the same as GET's.

const REPLICAS = 2;
const TWO_MB = 2 * 1024 * 1024;
const ATTEMPTS = 40;

const log = (line: string) => process.stderr.write(`[edge] ${line}\n`);

describe('the edge through the load balancer (two replicas behind HAProxy)', () => {
  const prefix = `edge_${randomBytes(3).toString('hex')}`;
  let engines: Engines | undefined;
  let stack: ClusterStack | undefined;
  const running = (): ClusterStack => stack as ClusterStack;

  beforeAll(async () => {
    engines = await startEngines({ docker: false, log: (line) => log(`engines: ${line}`) });
    stack = await startClusterStack({
      replicas: REPLICAS,
      mongoUrl: engines.mongoUrl,
      kafkaBrokers: engines.kafkaBrokers,
      namePrefix: prefix,
      logDir: join(tmpdir(), `checkout-${prefix}`),
      logLevel: 'warn',
      replicationFactor: 1,
      minInsyncReplicas: 1,
      runtime: 'bundle',
      extraEnv: {
        gateway: {
          CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
          RATE_LIMIT_PER_WINDOW: '1000000',
          RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        },
      },
      log,
    });
  }, 240_000);

  afterAll(async () => {
    await stack?.stop().catch((err: unknown) => log(`stopping the stack: ${String(err)}`));
    await engines?.stop().catch((err: unknown) => log(`stopping the engines: ${String(err)}`));
  }, 60_000);

  it(`When the SDK sends a 2 MB order ${ATTEMPTS} times through the load balancer, then every answer is 413 PAYLOAD_TOO_LARGE (D7), as from a replica directly`, async () => {
    const admin = new AdminClient(running().env.adminUrl, running().env.adminToken);
    const { testKey } = await admin.createOrganizationWithKeys('Edge 413');
    // No retries: each attempt's own outcome counts (a retry would hide a dropped connection).
    const checkout = new Checkout(testKey, { baseUrl: running().frontends.gateway, maxRetries: 0 });
    const outcomes = new Map<string, number>();
    for (let i = 0; i < ATTEMPTS; i += 1) {
      const outcome = await checkout.orders
        .create({ items: [{ name: 'x'.repeat(TWO_MB), quantity: 1, unitPrice: 100 }] })
        .then(
          () => 'created',
          (err: unknown) =>
            err instanceof CheckoutApiError ? `${err.status} ${err.code}` : `failed: ${(err as Error).message}`,
        );
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    expect(Object.fromEntries(outcomes)).toEqual({ '413 PAYLOAD_TOO_LARGE': ATTEMPTS });
    // The same body straight to a replica: the answer the load balancer must pass on.
    const direct = new Checkout(testKey, {
      baseUrl: `http://127.0.0.1:${running().live('gateway')[0]?.port}`,
      maxRetries: 0,
    });
    await expect(
      direct.orders.create({ items: [{ name: 'x'.repeat(TWO_MB), quantity: 1, unitPrice: 100 }] }),
    ).rejects.toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it("When one caller sends more wrong operator tokens than the limit through the load balancer, then the operators still get in (every caller shares HAProxy's address)", async () => {
    const admin = `${running().frontends.admin}/admin/organizations`;
    const statuses: number[] = [];
    // More than the limit (ADMIN_AUTH_FAILURES_PER_MINUTE, 10) on each of the two replicas HAProxy spreads them over.
    for (let i = 0; i < 30; i += 1) {
      const response = await request(admin, { headers: { authorization: `Bearer wrong-token-${i}` } });
      await response.body.dump();
      statuses.push(response.statusCode);
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    const operator = await request(admin, { headers: { authorization: `Bearer ${running().env.adminToken}` } });
    await operator.body.dump();
    expect(operator.statusCode).toBe(200);
  });

  it('When every method is sent in any order on one keep-alive connection through the load balancer, then each answer is well framed, the connection stays open, and HEAD answers as GET without a body', async () => {
    const admin = new AdminClient(running().env.adminUrl, running().env.adminToken);
    const { testKey } = await admin.createOrganizationWithKeys('Edge framing');
    const checkout = new Checkout(testKey, { baseUrl: running().frontends.gateway, maxRetries: 0 });
    const order = await checkout.orders.create({ items: [{ name: 'Tea', quantity: 1, unitPrice: 100 }] });
    const paths = ['/readyz', '/healthz', '/v0/events', `/v0/orders/${order.id}`, '/v0/orders', '/no/such/path'];
    // The outside suite's order first (HEAD last), then seeded shuffles: HEAD first, between, after a refusal.
    const suiteOrder: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
    const orders = [suiteOrder, ...[1, 2, 3].map((seed) => shuffled(METHODS, seed))];
    for (const path of paths) {
      const sequence = orders.flat().map((method) => ({ method, path }));
      const { answers, failures } = await sendOnOneConnection(running().frontends.gateway, sequence, {
        authorization: `Bearer ${testKey}`,
      });
      log(`${path}: ${answers.map((a) => `${a.method} ${a.status}`).join(', ')}`);
      expect(failures, path).toEqual([]);
      expect(answers.length, path).toBe(sequence.length);
      // One connection throughout: no answer closed it, so none can have left a stray byte on it either.
      expect(
        answers
          .slice(1)
          .filter((a) => !a.reusedSocket)
          .map((a) => `${a.method} ${a.status}`),
        path,
      ).toEqual([]);
      const get = answers.find((a) => a.method === 'GET');
      const heads = answers.filter((a) => a.method === 'HEAD');
      expect(heads.length, path).toBe(orders.length);
      // A list's length may change between two reads (an order's event arriving): only the health bodies are fixed.
      const mirrored = (headers: IncomingHttpHeaders) =>
        path.endsWith('z')
          ? representationHeaders(headers)
          : { ...representationHeaders(headers), 'content-length': 0 };
      for (const head of heads) {
        expect(head.bodyBytes, path).toBe(0);
        expect(head.status, path).toBe(get?.status);
        expect(mirrored(head.headers), path).toEqual(mirrored(get?.headers ?? {}));
      }
    }
  });
});
