import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type {} from '@checkout/testing';
import { connectMongo, ensureIndexes, type MongoConnection } from '@checkout/mongo';
import { GATEWAY_INDEXES } from '../../src/store/indexes';
import { IdempotencyStore } from '../../src/store/idempotency.store';

// The Idempotency-Key records (D42) on the real engine: the unique insert decides, expired and abandoned
// records are ignored and reclaimed (the local engine applies no TTL index), and the sweep deletes old ones.

const HOUR = 3_600_000;
const RETENTION = 24 * HOUR;
const LOCK = 15_000;
let mongo: MongoConnection;
let store: IdempotencyStore;
const scope = { organizationId: 'org_idem', mode: 'test' as const };
const t0 = new Date('2026-11-20T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const newId = () => `rec_${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  const { mongoUrl } = inject('engines');
  mongo = await connectMongo(mongoUrl, `gateway_idem_${randomBytes(4).toString('hex')}`, { appName: 'gateway-test' });
  await ensureIndexes(mongo.db, GATEWAY_INDEXES);
  store = new IdempotencyStore(mongo.db, { retentionMs: RETENTION, lockMs: LOCK });
});

afterAll(async () => {
  await mongo?.db.dropDatabase().catch(() => {});
  await mongo?.close();
});

describe('IdempotencyStore (D42)', () => {
  it('When 10 requests begin one key at once, then exactly one starts and the others are told it is in use', async () => {
    const id = newId();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 })),
    );
    expect(results.filter((r) => r.kind === 'started')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in_use')).toHaveLength(9);
  });

  it('When a completed key is begun again, then the same body replays and another body is a reuse', async () => {
    const id = newId();
    const first = await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 });
    if (first.kind !== 'started') throw new Error(`expected started, got ${first.kind}`);
    await store.complete(scope, id, first.token, { status: 201, body: '{"order":{"id":"ord_test_1"}}' }, t0);
    expect(await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: at(HOUR) })).toEqual({
      kind: 'replay',
      response: { status: 201, body: '{"order":{"id":"ord_test_1"}}' },
    });
    expect(await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'other', now: at(HOUR) })).toEqual({
      kind: 'reused',
    });
  });

  it('When a record is past its 24 hours, then it is ignored: the key starts afresh, even with another body', async () => {
    const id = newId();
    const first = await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 });
    if (first.kind !== 'started') throw new Error('expected started');
    await store.complete(scope, id, first.token, { status: 201, body: '{}' }, t0);
    expect((await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'other', now: at(RETENTION + 1) })).kind).toBe(
      'started',
    );
  });

  it('When the request holding a key died (lock lapsed), then a retry starts instead of waiting 24 hours', async () => {
    const id = newId();
    expect((await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 })).kind).toBe('started');
    expect((await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: at(LOCK - 1) })).kind).toBe('in_use');
    expect((await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: at(LOCK + 1) })).kind).toBe('started');
  });

  it('When a key is released after a 5xx, then the next request with it starts', async () => {
    const id = newId();
    const first = await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 });
    if (first.kind !== 'started') throw new Error('expected started');
    await store.release(id, first.token, t0);
    expect((await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 })).kind).toBe('started');
  });

  it('When a key is released after a 5xx and retried, then the retry is in the same life of the key (its since); after expiry a use begins a new one', async () => {
    const id = newId();
    const first = await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 });
    if (first.kind !== 'started') throw new Error('expected started');
    expect(first.since).toEqual(t0);
    await store.release(id, first.token, at(1_000));
    const retry = await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: at(HOUR) });
    expect(retry).toMatchObject({ kind: 'started', since: t0 });
    if (retry.kind !== 'started') throw new Error('expected started');
    // The released holder can no longer keep an answer; the retry can.
    await store.complete(scope, id, first.token, { status: 201, body: '"first"' }, at(HOUR));
    await store.complete(scope, id, retry.token, { status: 201, body: '"retry"' }, at(HOUR));
    expect(await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: at(2 * HOUR) })).toEqual({
      kind: 'replay',
      response: { status: 201, body: '"retry"' },
    });
    const reused = await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: at(RETENTION + 1) });
    expect(reused).toMatchObject({ kind: 'started', since: at(RETENTION + 1) });
  });

  it('When a released key is used with another body, then it begins a new life (not the released try)', async () => {
    const id = newId();
    const first = await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'f', now: t0 });
    if (first.kind !== 'started') throw new Error('expected started');
    await store.release(id, first.token, t0);
    expect(await store.begin(scope, { id, apiKeyId: 'k', fingerprint: 'other', now: at(1) })).toMatchObject({
      kind: 'started',
      since: at(1),
    });
  });

  it('When the sweep runs, then records past their retention are deleted and younger ones stay', async () => {
    const old = newId();
    const young = newId();
    await store.begin(scope, { id: old, apiKeyId: 'k', fingerprint: 'f', now: t0 });
    await store.begin(scope, { id: young, apiKeyId: 'k', fingerprint: 'f', now: at(2 * HOUR) });
    await store.deleteExpired(at(RETENTION + HOUR));
    const left = await mongo.db
      .collection('idempotency_keys')
      .find({ _id: { $in: [old, young] } as never })
      .toArray();
    expect(left.map((d) => d._id)).toEqual([young]);
  });
});
