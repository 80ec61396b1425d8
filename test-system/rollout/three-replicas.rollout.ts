import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from '@checkout/mongo';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '@checkout/engines';
import { TOPICS, topicName } from '@checkout/contracts';
import { createKafka } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { AdminClient, eventually, metricValue } from '@checkout/testing';
import type { Replica } from '../../scripts/lib/cluster-replicas';
import { startClusterStack, type ClusterStack } from '../../scripts/lib/cluster-stack';
import type { ServiceName } from '../../scripts/lib/process-stack';
import { startHoldingReceiver, type HoldingReceiver } from './holding-receiver';

// What each replica keeps to itself, and what must happen once however many replicas there are,
// shown on 3 replicas of every service behind HAProxy (one broker: nothing here is about Kafka's replication).
// Every check is a count or a state; the one bound (a revoked key stops working within AUTH_CACHE_MS) is an
// `eventually` deadline on each gateway replica, polled directly, not through the load balancer.
// docs/operations.md ("How each service scales", "Singletons and per-replica state") cites this file.

const REPLICAS = 3;
/** The gateway's default, the bound docs/operations.md promises. */
const AUTH_CACHE_MS = 2_000;
/** On top of AUTH_CACHE_MS: one poll interval (200 ms) and a request's own time on 2 busy cores. */
const REVOCATION_MARGIN_MS = 1_000;
const RATE_LIMIT = 90;
const SHARE = Math.ceil(RATE_LIMIT / REPLICAS);
/** One hour: the bursts below (a few seconds) fall in one epoch-aligned window. */
const RATE_WINDOW_MS = 3_600_000;
const PER_HOST = 2;
const SESSIONS = 30;
const RECOVERY_LEASE = 'webhook-dispatcher:recovery-sweep';
const EVENTS_PATH = '/v0/events?limit=1';
const DAY_MS = 86_400_000;

const log = (line: string) => process.stderr.write(`[replicas] ${line}\n`);
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const direct = (replica: Replica) => `http://127.0.0.1:${replica.port}`;
/** Where a replica serves /metrics: the gateway on its operators' listener, the others on PORT. */
const metricsOf = (replica: Replica) =>
  `http://127.0.0.1:${replica.service === 'gateway' ? replica.adminPort : replica.port}`;

async function statusOf(url: string, key: string): Promise<number> {
  const response = await request(url, { headers: { authorization: `Bearer ${key}` } });
  await response.body.dump();
  return response.statusCode;
}

describe('three replicas of every service', () => {
  const prefix = `replicas_${randomBytes(3).toString('hex')}`;
  let engines: Engines | undefined;
  let stack: ClusterStack | undefined;
  let mongo: MongoClient | undefined;
  let admin: AdminClient;
  const running = (): ClusterStack => stack as ClusterStack;
  const db = (name: string): Db => (mongo as MongoClient).db(`${prefix}_${name}`);
  const perReplica = (service: ServiceName, name: string, labels: Record<string, string> = {}) =>
    Promise.all(
      running()
        .live(service)
        .map((r) => metricValue(metricsOf(r), name, labels)),
    );

  beforeAll(async () => {
    // The shared engines of `npm test` when given (KAFKA_BROKERS / MONGODB_URL), else engines of its own.
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
      webhookRetryDelaysMs: '1000,2000,3000,4000',
      extraEnv: {
        gateway: {
          AUTH_CACHE_MS: String(AUTH_CACHE_MS),
          RATE_LIMIT_PER_WINDOW: String(RATE_LIMIT),
          RATE_LIMIT_WINDOW_MS: String(RATE_WINDOW_MS),
          CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
          CHECKOUT_RATE_LIMIT_PER_WINDOW: '1000000',
        },
        orders: { OUTBOX_SWEEP_INTERVAL_MS: '1000' },
        sessions: { OUTBOX_SWEEP_INTERVAL_MS: '1000', EXPIRY_SWEEP_INTERVAL_MS: '500' },
        dispatcher: {
          WEBHOOK_MAX_CONCURRENCY_PER_HOST: String(PER_HOST),
          // Long enough for the held attempts to be counted; the claim, after which a dead replica's work is redone,
          // just above.
          WEBHOOK_TIMEOUT_MS: '10000',
          WEBHOOK_CLAIM_TTL_MS: '12000',
          WEBHOOK_RECOVERY_INTERVAL_MS: '500',
          RETENTION_SWEEP_INTERVAL_MS: '1000',
        },
      },
      log,
    });
    mongo = new MongoClient(engines.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
  }, 240_000);

  afterAll(async () => {
    await mongo?.close().catch(() => {});
    await stack?.stop().catch((err: unknown) => log(`stopping the stack: ${String(err)}`));
    await engines?.stop().catch((err: unknown) => log(`stopping the engines: ${String(err)}`));
  }, 60_000);

  it('When one key sends more than its share to each gateway replica, then each admits ceil(RATE_LIMIT_PER_WINDOW / 3), and spread by the load balancer the key gets RATE_LIMIT_PER_WINDOW (D43)', async () => {
    const org = await admin.createOrganizationWithKeys('Replicas Rate Limit');
    const window = Math.floor(Date.now() / RATE_WINDOW_MS);
    const admittedPerReplica: number[] = [];
    for (const gateway of running().live('gateway')) {
      const statuses: number[] = [];
      for (let i = 0; i < SHARE + 5; i++)
        statuses.push(await statusOf(`${direct(gateway)}${EVENTS_PATH}`, org.testKey));
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      admittedPerReplica.push(statuses.filter((s) => s === 200).length);
    }
    const spread: number[] = [];
    for (let i = 0; i < RATE_LIMIT + 10; i++)
      spread.push(await statusOf(`${running().frontends.gateway}${EVENTS_PATH}`, org.liveKey));
    expect(Math.floor(Date.now() / RATE_WINDOW_MS), 'the requests straddled two rate-limit windows').toBe(window);
    expect(admittedPerReplica).toEqual([SHARE, SHARE, SHARE]);
    expect({
      admitted: spread.filter((s) => s === 200).length,
      limited: spread.filter((s) => s === 429).length,
    }).toEqual({ admitted: RATE_LIMIT, limited: 10 });
  });

  it('When a key is revoked through one gateway replica, then it stops there at once and on every other replica within AUTH_CACHE_MS', async () => {
    const organizationId = await admin.createOrganization('Replicas Revocation');
    const key = await admin.createKey(organizationId, 'test');
    const [revoker, ...others] = running().live('gateway') as [Replica, ...Replica[]];
    // Every replica has verified the key, so every replica has it cached.
    for (const gateway of [revoker, ...others])
      expect(await statusOf(`${direct(gateway)}${EVENTS_PATH}`, key.secret)).toBe(200);
    await new AdminClient(metricsOf(revoker), running().env.adminToken).call(
      'POST',
      `/organizations/${organizationId}/keys/${key.id}/revoke`,
    );
    expect(await statusOf(`${direct(revoker)}${EVENTS_PATH}`, key.secret)).toBe(401);
    await Promise.all(
      others.map((gateway) =>
        eventually(async () => (await statusOf(`${direct(gateway)}${EVENTS_PATH}`, key.secret)) === 401, {
          deadlineMs: AUTH_CACHE_MS + REVOCATION_MARGIN_MS,
          intervalMs: 200,
          description: `gateway#${gateway.generation} refusing the key revoked on gateway#${revoker.generation}`,
        }),
      ),
    );
  });

  it('When old webhook records are due, then the retention sweep every dispatcher replica runs deletes them, and keeps a pending delivery and recent records', async () => {
    const webhooks = db('webhooks');
    const old = new Date(Date.now() - 60 * DAY_MS);
    const recent = new Date();
    const scope = { organizationId: 'org_replicas_retention', mode: 'test' };
    const event = (id: string, at: Date) => ({
      _id: id,
      ...scope,
      type: 'checkout.session.expired',
      sessionId: 'cs_test_retention',
      createdAt: at,
      body: '{}',
      callbackUrl: null,
      initialDeliveryId: null,
      recordedAt: at,
    });
    const delivery = (id: string, at: Date, status: 'succeeded' | 'pending') => ({
      _id: id,
      ...scope,
      eventId: 'evt_test_retention_old',
      eventType: 'checkout.session.expired',
      url: 'http://127.0.0.1:1/never',
      status,
      attempts: [],
      attemptCount: status === 'pending' ? 0 : 1,
      // A pending delivery some process holds for a day: out of the recovery sweep's way.
      nextAttemptAt: status === 'pending' ? new Date(Date.now() + DAY_MS) : null,
      lockedUntil: status === 'pending' ? new Date(Date.now() + DAY_MS) : at,
      lockOwner: null,
      deadLetterPending: false,
      createdAt: at,
      updatedAt: at,
    });
    await webhooks
      .collection<{ _id: string }>('events')
      .insertMany([event('evt_test_retention_old', old), event('evt_test_retention_new', recent)]);
    await webhooks
      .collection<{ _id: string }>('deliveries')
      .insertMany([
        delivery('dlv_test_retention_old_done', old, 'succeeded'),
        delivery('dlv_test_retention_old_pending', old, 'pending'),
        delivery('dlv_test_retention_new_done', recent, 'succeeded'),
      ]);
    const remaining = async () => [
      ...(
        await webhooks.collection<{ _id: string }>('events').find({ organizationId: scope.organizationId }).toArray()
      ).map((d) => d._id),
      ...(
        await webhooks
          .collection<{ _id: string }>('deliveries')
          .find({ organizationId: scope.organizationId })
          .toArray()
      ).map((d) => d._id),
    ];
    await eventually(async () => (await remaining()).length === 3, {
      deadlineMs: 20_000,
      intervalMs: 250,
      description: 'the retention sweep',
    });
    expect((await remaining()).sort()).toEqual([
      'dlv_test_retention_new_done',
      'dlv_test_retention_old_pending',
      'evt_test_retention_new',
    ]);
  });

  it('When the recovery sweep lease is held by a replica that died, then no replica sweeps until it expires, and then another takes it', async () => {
    const leases = db('webhooks').collection<{ _id: string; owner: string; expiresAt: Date }>('leases');
    const rounds = (lease: 'taken' | 'held_elsewhere') =>
      perReplica('webhook-dispatcher', 'webhook_recovery_sweeps_total', { lease });
    // Each round takes the lease and releases it: any live replica may sweep, one at a time.
    await eventually(async () => (await rounds('taken')).every((n) => n > 0), {
      deadlineMs: 20_000,
      intervalMs: 250,
      description: 'every dispatcher replica sweeping in turn',
    });
    // What a holder killed mid-round leaves: its lease document, until its TTL runs out.
    const DEAD = 'a-replica-killed-mid-sweep';
    await leases.replaceOne(
      { _id: RECOVERY_LEASE },
      { owner: DEAD, expiresAt: new Date(Date.now() + 120_000) },
      { upsert: true },
    );
    const heldAtStart = await rounds('held_elsewhere');
    // Once each replica has deferred once, every later round of it defers too (its rounds are sequential).
    await eventually(async () => (await rounds('held_elsewhere')).every((n, i) => n >= (heldAtStart[i] ?? 0) + 1), {
      deadlineMs: 20_000,
      intervalMs: 250,
      description: 'every replica deferring to the dead holder',
    });
    const takenWhileHeld = await rounds('taken');
    const heldMidway = await rounds('held_elsewhere');
    await eventually(async () => (await rounds('held_elsewhere')).every((n, i) => n >= (heldMidway[i] ?? 0) + 2), {
      deadlineMs: 20_000,
      intervalMs: 250,
      description: 'two more deferred rounds on every replica',
    });
    expect(await rounds('taken'), 'a replica swept while another held the lease').toEqual(takenWhileHeld);
    expect((await leases.findOne({ _id: RECOVERY_LEASE }))?.owner).toBe(DEAD);
    // The dead holder's TTL runs out: the next round of some replica clears it and sweeps.
    await leases.updateOne({ _id: RECOVERY_LEASE, owner: DEAD }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    await eventually(
      async () =>
        sum(await rounds('taken')) > sum(takenWhileHeld) && (await leases.countDocuments({ owner: DEAD })) === 0,
      {
        deadlineMs: 20_000,
        intervalMs: 250,
        description: 'a live replica taking over the expired lease',
      },
    );
  });

  describe('When 30 sessions with a webhook come due at once', () => {
    let receiver: HoldingReceiver | undefined;
    afterAll(async () => receiver?.close());

    it("then each expires once across the 3 sweeping replicas, every outbox event is published, a host gets 2 attempts per dispatcher replica, and a killed dispatcher's work is redone by the others", async () => {
      const held = await startHoldingReceiver();
      receiver = held;
      const org = await admin.createOrganizationWithKeys('Replicas Expiry');
      const sessionIds: string[] = [];
      const body = JSON.stringify({
        items: [{ name: 'Espresso', quantity: 1, unitPrice: 350 }],
        callbackUrl: held.url,
      });
      for (let i = 0; i < SESSIONS; i++) {
        const response = await request(`${running().frontends.gateway}/v0/checkout/sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.testKey}`, 'content-type': 'application/json' },
          body,
        });
        const created = (await response.body.json()) as { session?: { id: string } };
        expect(response.statusCode).toBe(201);
        sessionIds.push((created.session as { id: string }).id);
      }
      const sessions = db('sessions').collection<{ _id: string; orderId: string; status: string }>('sessions');
      const orderIds = (await sessions.find({ _id: { $in: sessionIds } }).toArray()).map((s) => s.orderId);
      const expiredBefore = await perReplica('sessions', 'sessions_expired_by_sweep_total');
      const closesBefore = await perReplica('orders', 'http_requests_total', {
        method: 'POST',
        route: '/internal/orders/:orderId/close-payments',
      });
      // Time passes for all 30 at once: every sessions replica's next sweep finds them due.
      await sessions.updateMany({ _id: { $in: sessionIds } }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });

      // Per-host concurrency is per replica: 2 attempts in flight on each of the 3 dispatchers, 6 at the host.
      await eventually(() => held.open === PER_HOST * REPLICAS, {
        deadlineMs: 30_000,
        intervalMs: 100,
        description: `${PER_HOST * REPLICAS} attempts held open at the receiver`,
      });
      expect(await perReplica('webhook-dispatcher', 'webhook_attempts_in_flight')).toEqual([
        PER_HOST,
        PER_HOST,
        PER_HOST,
      ]);

      // SIGKILL of a dispatcher holding 2 attempts: the survivors' recovery sweep redoes its work once its claims
      // expire.
      const survivorsTakenBefore = sum(
        (await perReplica('webhook-dispatcher', 'webhook_recovery_sweeps_total', { lease: 'taken' })).slice(1),
      );
      const inFlightOfVictim = await running().kill('webhook-dispatcher');
      held.release();
      const deliveries = db('webhooks').collection<{ _id: string; status: string }>('deliveries');
      const delivered = () => deliveries.countDocuments({ organizationId: org.organizationId, status: 'succeeded' });
      await eventually(async () => (await delivered()) === SESSIONS, {
        deadlineMs: 75_000,
        intervalMs: 500,
        description: `${SESSIONS} deliveries succeeded`,
      });
      expect(await deliveries.countDocuments({ organizationId: org.organizationId })).toBe(SESSIONS);
      expect(held.maxOpen, 'requests open at once at one host').toBe(PER_HOST * REPLICAS);
      const sentAgain = [...held.requestsByEvent.values()].filter((n) => n > 1).length;
      expect(sentAgain, 'attempts the killed replica held, made again by a survivor').toBeGreaterThanOrEqual(PER_HOST);
      expect(
        sum(await perReplica('webhook-dispatcher', 'webhook_recovery_sweeps_total', { lease: 'taken' })),
      ).toBeGreaterThan(survivorsTakenBefore);
      log(
        `the killed dispatcher held ${inFlightOfVictim} API request(s) in HAProxy and ${PER_HOST} attempts; ${sentAgain} event(s) sent again after the kill`,
      );

      // Expired exactly once: the 3 sweepers' counts add up to 30, and each session has one expired event.
      expect((await sessions.find({ _id: { $in: sessionIds } }).toArray()).map((s) => s.status)).toEqual(
        sessionIds.map(() => 'expired'),
      );
      const sweeps = await perReplica('sessions', 'sessions_expiry_sweeps_total');
      expect(
        sweeps.every((n) => n > 0),
        `every sessions replica sweeps: ${sweeps.join(', ')}`,
      ).toBe(true);
      const expiredPerReplica = (await perReplica('sessions', 'sessions_expired_by_sweep_total')).map(
        (n, i) => n - (expiredBefore[i] ?? 0),
      );
      expect(sum(expiredPerReplica)).toBe(SESSIONS);

      // Every outbox event is on Kafka at least once: orders' payments-closed (published by the replica whose
      // write closed the order) and sessions' expired events; no outbox holds anything.
      const closes = (
        await perReplica('orders', 'http_requests_total', {
          method: 'POST',
          route: '/internal/orders/:orderId/close-payments',
        })
      ).map((n, i) => n - (closesBefore[i] ?? 0));
      expect(
        closes.every((n) => n > 0),
        `every orders replica closed orders and wrote events: ${closes.join(', ')}`,
      ).toBe(true);
      const expiredEvents = new Map<string, Set<string>>();
      const closedOrders = new Map<string, number>();
      const kafka = createKafka({ brokers: (engines as Engines).kafkaBrokers, clientId: `${prefix}-probe` });
      const probes = [
        await readTopic({
          kafka,
          topic: topicName(prefix, TOPICS.sessionEvents),
          groupId: `${prefix}-probe-sessions`,
          onMessage: (m) => {
            const value = JSON.parse(m.value) as { type?: string; sessionId?: string; eventId?: string };
            if (value.type === 'checkout.session.expired' && value.sessionId && value.eventId)
              expiredEvents.set(value.sessionId, (expiredEvents.get(value.sessionId) ?? new Set()).add(value.eventId));
          },
        }),
        await readTopic({
          kafka,
          topic: topicName(prefix, TOPICS.orderEvents),
          groupId: `${prefix}-probe-orders`,
          onMessage: (m) => {
            const value = JSON.parse(m.value) as { type?: string; orderId?: string };
            if (value.type === 'order.payments_closed' && value.orderId)
              closedOrders.set(value.orderId, (closedOrders.get(value.orderId) ?? 0) + 1);
          },
        }),
      ];
      try {
        await eventually(
          () => sessionIds.every((id) => expiredEvents.has(id)) && orderIds.every((id) => closedOrders.has(id)),
          { deadlineMs: 30_000, intervalMs: 250, description: 'every event on its topic' },
        );
      } finally {
        await Promise.all(probes.map((p) => p.stop()));
      }
      expect(
        sessionIds.filter((id) => expiredEvents.get(id)?.size !== 1),
        'sessions with more than one expired event',
      ).toEqual([]);
      await eventually(
        async () =>
          (await db('orders').collection('orders').countDocuments({ outboxPending: true })) +
            (await sessions.countDocuments({ outboxPending: true })) ===
          0,
        {
          deadlineMs: 15_000,
          intervalMs: 250,
          description: 'every outbox empty',
        },
      );
      log(
        `expired per sessions replica: ${expiredPerReplica.join(', ')}; close-payments per orders replica: ${closes.join(', ')}; payments-closed events published twice: ${[...closedOrders.values()].filter((n) => n > 1).length}`,
      );
    });
  });
});
