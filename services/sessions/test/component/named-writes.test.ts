import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type {} from '@checkout/testing';
import { connectMongo, ensureIndexes, scoped, type MongoConnection } from '@checkout/mongo';
import type { OutboxEntry } from '@checkout/kafka';
import { SESSION_INDEXES } from '../../src/store/indexes';
import { SessionsStore } from '../../src/store/sessions.store';
import type { OrderCopy } from '../../src/store/session.document';
import type { SessionDocument } from '../../src/store/session.document';

// The sessions store's named writes on the real engine: each is one findOneAndUpdate whose filter holds the state
// it was decided on, so of two writers deciding on the same read exactly one writes, and an event is recorded only
// with the state change it belongs to (the storage rule). The domain's answer to a lost write (read what won,
// decide once more) is exercised through the service in payments.test.ts and expiry.test.ts.

let mongo: MongoConnection;
let store: SessionsStore;
const scope = { organizationId: 'org_writes', mode: 'test' as const };
const t0 = new Date('2026-11-20T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

beforeAll(async () => {
  const { mongoUrl } = inject('engines');
  mongo = await connectMongo(mongoUrl, `sessions_writes_${randomBytes(4).toString('hex')}`, {
    appName: 'sessions-test',
  });
  await ensureIndexes(mongo.db, SESSION_INDEXES);
  store = new SessionsStore(mongo.db);
});

afterAll(async () => {
  await mongo?.db.dropDatabase().catch(() => {});
  await mongo?.close();
});

/** A pending session stored as createSession stores one, due in an hour; its copy of its order at `revision`. */
async function pendingSession(revision = 1): Promise<SessionDocument> {
  const id = `cs_test_${randomBytes(12).toString('hex')}`;
  const inserted = await store.insertSession(scope, {
    _id: id,
    orderId: `ord_test_${randomBytes(12).toString('hex')}`,
    status: 'pending',
    successUrl: null,
    callbackUrl: null,
    expiresAt: at(3_600_000),
    failedAttempts: 0,
    requireFromCustomer: { phone: false, shippingAddress: false, location: false },
    sessionDataJson: '{}',
    organizationName: 'Writes',
    enabledPaymentMethods: ['card'],
    collected: {},
    ...copy(revision, 'open'),
    outbox: [],
    outboxPending: false,
    createdAt: t0,
    updatedAt: t0,
  });
  if (!inserted.created) throw new Error('not inserted');
  return inserted.doc;
}

function copy(revision: number, status: 'open' | 'completed' | 'cancelled'): OrderCopy {
  return { orderJson: JSON.stringify({ status, revision }), orderRevision: revision };
}

function event(doc: SessionDocument, label: string): OutboxEntry {
  return { eventId: `evt_test_${label}`, topic: 'writes', key: doc._id, value: label, createdAt: t0 };
}

async function stored(doc: SessionDocument): Promise<SessionDocument> {
  const found = await store.getSession(scope, doc._id);
  if (!found) throw new Error(`${doc._id} is gone`);
  return found;
}

describe('complete and expire: the session as their event presents it', () => {
  it('When two writers complete one read at once, then one writes, and one event is in the outbox (D28)', async () => {
    const read = await pendingSession();
    const results = await Promise.all(
      ['a', 'b'].map((label) =>
        store.complete(scope, read, { copy: copy(2, 'completed'), event: event(read, label), now: at(1) }),
      ),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const after = await stored(read);
    expect(after).toMatchObject({ status: 'completed', orderRevision: 2, outboxPending: true });
    expect(after.outbox).toHaveLength(1);
  });

  it('When an expiry and a completion race on one read, then exactly one of them is stored, with its own event only (D21, D27)', async () => {
    for (let run = 0; run < 10; run += 1) {
      const read = await pendingSession();
      const [expired, completed] = await Promise.all([
        store.expire(scope, read, {
          copy: copy(2, 'open'),
          expiresAt: read.expiresAt,
          event: event(read, 'expired'),
          now: at(1),
        }),
        store.complete(scope, read, { copy: copy(3, 'completed'), event: event(read, 'completed'), now: at(1) }),
      ]);
      expect([expired, completed].filter((r) => r !== null)).toHaveLength(1);
      const after = await stored(read);
      const winner = expired ? 'expired' : 'completed';
      expect(after.status).toBe(winner);
      expect(after.outbox.map((e) => e.value)).toEqual([winner]);
    }
  });

  it('When a PATCH or a declined attempt landed after the read, then the completion still writes, over them (D23, D28)', async () => {
    const changes: Array<(read: SessionDocument) => Promise<unknown>> = [
      (read) => store.updateSession(scope, read, { sessionDataJson: '{"k":1}', now: at(1) }),
      (read) => store.countDeclined(scope, read._id, at(1)),
      (read) => store.updateSession(scope, read, { expiresAt: at(7_200_000), now: at(1) }),
    ];
    for (const change of changes) {
      const read = await pendingSession();
      await change(read);
      const changed = await stored(read);
      expect(
        await store.complete(scope, read, { copy: copy(2, 'completed'), event: event(read, 'paid'), now: at(2) }),
      ).toEqual({
        ...changed,
        status: 'completed',
        updatedAt: at(2),
        ...copy(2, 'completed'),
        outbox: [event(read, 'paid')],
        outboxPending: true,
        revision: (changed.revision ?? 0) + 1,
      });
    }
  });

  it('When a newer order copy was stored after the read, then a settlement decided on an older one writes nothing', async () => {
    const read = await pendingSession();
    await store.takeOrderCopy(scope, read._id, copy(3, 'open'), false);
    const changed = await stored(read);
    expect(
      await store.complete(scope, read, { copy: copy(2, 'completed'), event: event(read, 'old'), now: at(2) }),
    ).toBeNull();
    expect(await store.cancel(scope, read, { copy: copy(2, 'cancelled'), now: at(2) })).toBeNull();
    expect(
      await store.expire(scope, read, { expiresAt: read.expiresAt, event: event(read, 'old'), now: at(2) }),
    ).toBeNull();
    expect(await stored(read)).toEqual(changed);
    // Decided again on what won, it writes.
    expect(
      await store.complete(scope, changed, { copy: copy(4, 'completed'), event: event(read, 'new'), now: at(3) }),
    ).toMatchObject({
      status: 'completed',
      orderRevision: 4,
      outbox: [{ value: 'new' }],
    });
  });

  it('When the session was extended after the sweep read it, then the expiry judged by the old expiresAt writes nothing (D21, D23)', async () => {
    const read = await pendingSession();
    await store.updateSession(scope, read, { expiresAt: at(7_200_000), now: at(1) });
    expect(
      await store.expire(scope, read, { expiresAt: read.expiresAt, event: event(read, 'expired'), now: at(2) }),
    ).toBeNull();
    expect(await stored(read)).toMatchObject({ status: 'pending', expiresAt: at(7_200_000), outbox: [] });
  });

  it('When the session is no longer pending, then neither writes, and its outbox is left as it was', async () => {
    const read = await pendingSession();
    await store.cancel(scope, read, { copy: copy(2, 'cancelled'), now: at(1) });
    expect(await store.complete(scope, read, { event: event(read, 'late'), now: at(2) })).toBeNull();
    expect(
      await store.expire(
        scope,
        { ...read, orderRevision: 2 },
        { expiresAt: at(2), event: event(read, 'late'), now: at(2) },
      ),
    ).toBeNull();
    expect(await stored(read)).toMatchObject({ status: 'cancelled', outbox: [], outboxPending: false });
  });
});

describe('a rolling deploy beside the version that replaced whole documents', () => {
  it('When that version replaces a session it read before a named write, then its replace loses (every named write bumps revision)', async () => {
    const writes: Array<(read: SessionDocument) => Promise<unknown>> = [
      (read) => store.complete(scope, read, { event: event(read, 'paid'), now: at(1) }),
      (read) => store.takeOrderCopy(scope, read._id, copy(2, 'open'), false),
      (read) => store.updateSession(scope, read, { sessionDataJson: '{"k":1}', now: at(1) }),
      (read) => store.countDeclined(scope, read._id, at(1)),
      (read) => store.collectInputs(scope, read, { inputs: { phone: '+15555550100' }, now: at(1) }),
    ];
    for (const write of writes) {
      const read = await pendingSession();
      await write(read);
      const written = await stored(read);
      const stale = await scoped(store.collection, scope).replaceIfUnchanged(read, { ...read, status: 'cancelled' });
      expect(stale).toBeNull();
      expect(await stored(read)).toEqual(written);
    }
  });
});

describe('cancel (D25)', () => {
  it('When a cancel and a completion race on one read, then one is stored; a cancel records no event', async () => {
    for (let run = 0; run < 10; run += 1) {
      const read = await pendingSession();
      const [cancelled, completed] = await Promise.all([
        store.cancel(scope, read, { copy: copy(2, 'cancelled'), now: at(1) }),
        store.complete(scope, read, { copy: copy(2, 'completed'), event: event(read, 'completed'), now: at(1) }),
      ]);
      expect([cancelled, completed].filter((r) => r !== null)).toHaveLength(1);
      const after = await stored(read);
      expect(after.outbox).toHaveLength(cancelled ? 0 : 1);
      expect(after.status).toBe(cancelled ? 'cancelled' : 'completed');
    }
  });
});

describe('takeOrderCopy', () => {
  it('When copies of 20 revisions arrive at once in any order, then the newest is stored and no older one overwrites it', async () => {
    const read = await pendingSession();
    const revisions = Array.from({ length: 20 }, (_, i) => i + 2).sort(() => Math.random() - 0.5);
    await Promise.all(revisions.map((r) => store.takeOrderCopy(scope, read._id, copy(r, 'open'), false)));
    expect((await stored(read)).orderRevision).toBe(21);
    expect(await store.takeOrderCopy(scope, read._id, copy(5, 'open'), false)).toBeNull();
    expect(await store.takeOrderCopy(scope, read._id, copy(21, 'open'), false)).toBeNull();
    expect(await stored(read)).toMatchObject({ orderRevision: 21, orderJson: copy(21, 'open').orderJson });
  });

  it('When the copy shows a settled order, then a pending session does not take it on its own, a settled one does', async () => {
    const read = await pendingSession();
    expect(await store.takeOrderCopy(scope, read._id, copy(2, 'cancelled'), true)).toBeNull();
    await store.expire(scope, read, { expiresAt: read.expiresAt, event: event(read, 'expired'), now: at(1) });
    expect(await store.takeOrderCopy(scope, read._id, copy(2, 'cancelled'), true)).toMatchObject({
      status: 'expired',
      orderRevision: 2,
    });
  });
});

describe('updateSession (D23) and countDeclined (D27)', () => {
  it('When two PATCHes merge sessionData over one read, then the second is refused and must merge over the first', async () => {
    const read = await pendingSession();
    const [a, b] = await Promise.all([
      store.updateSession(scope, read, { sessionDataJson: '{"a":1}', now: at(1) }),
      store.updateSession(scope, read, { sessionDataJson: '{"b":1}', now: at(1) }),
    ]);
    expect([a, b].filter((r) => r !== null)).toHaveLength(1);
  });

  it('When the session expired after the read, then the extension is refused but sessionData still merges', async () => {
    const read = await pendingSession();
    await store.expire(scope, read, { expiresAt: read.expiresAt, event: event(read, 'expired'), now: at(1) });
    expect(await store.updateSession(scope, read, { expiresAt: at(7_200_000), now: at(2) })).toBeNull();
    expect(await store.updateSession(scope, read, { sessionDataJson: '{"k":1}', now: at(2) })).toMatchObject({
      status: 'expired',
      sessionDataJson: '{"k":1}',
    });
  });

  it('When a declined attempt comes at or after expiresAt, or after the session settled, then it is not counted (D21)', async () => {
    const read = await pendingSession();
    expect(await store.countDeclined(scope, read._id, read.expiresAt)).toBeNull();
    expect(await store.countDeclined(scope, read._id, at(1))).toMatchObject({ failedAttempts: 1 });
    await store.cancel(scope, { ...read, failedAttempts: 1 }, { now: at(2) });
    expect(await store.countDeclined(scope, read._id, at(3))).toBeNull();
  });

  it('When inputs are collected over a copy that a newer one replaced, then nothing is written', async () => {
    const read = await pendingSession();
    await store.takeOrderCopy(scope, read._id, copy(3, 'open'), false);
    expect(
      await store.collectInputs(scope, read, { inputs: { phone: '+15555550100' }, copy: copy(2, 'open'), now: at(1) }),
    ).toBeNull();
    expect(
      await store.collectInputs(scope, await stored(read), { inputs: { phone: '+15555550100' }, now: at(1) }),
    ).toMatchObject({
      orderRevision: 3,
      collected: { phone: '+15555550100' },
    });
  });
});
