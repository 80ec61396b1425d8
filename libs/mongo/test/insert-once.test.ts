import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type {} from '@checkout/testing';
import { connectMongo, scoped, type MongoConnection, type Scope, type ScopedDocument } from '../src/index';
import { CommandCounter } from '../src/testing';

// insertOnce() on the real engine: the unique index decides which of several inserts stores its document, and
// the others get the stored one back (the orders, customers, sessions and idempotency-record stores use it).

interface Customer extends ScopedDocument {
  _id: string;
  email: string;
  name: string;
}

const acme: Scope = { organizationId: 'org_acme', mode: 'test' };
const other: Scope = { organizationId: 'org_other', mode: 'test' };
const counter = new CommandCounter();
let mongo: MongoConnection;

beforeAll(async () => {
  mongo = await counter.watch(() =>
    connectMongo(inject('engines').mongoUrl, `insert_once_${randomBytes(4).toString('hex')}`),
  );
  await mongo.db
    .collection('customers')
    .createIndex({ organizationId: 1, mode: 1, email: 1 }, { unique: true, name: 'org_mode_email' });
});

afterAll(async () => {
  await mongo?.close();
});

const customers = (scope: Scope) => scoped(mongo.db.collection<Customer>('customers'), scope);
const uniqueId = (name: string) => `${name}_${randomBytes(6).toString('hex')}`;

describe('ScopedCollection.insertOnce', () => {
  it('When nothing holds the keys, then the document is stored with its scope in one command', async () => {
    const id = uniqueId('cust');
    const { result, commands } = await counter.during(() =>
      customers(acme).insertOnce({ _id: id, email: `${id}@example.com`, name: 'Ada' }),
    );
    expect(result).toEqual({ created: true, doc: { _id: id, email: `${id}@example.com`, name: 'Ada', ...acme } });
    expect(commands).toEqual({ insert: 1 });
    expect(await customers(acme).findOne({ _id: id })).toEqual(result.doc);
  });

  it('When the _id is taken, then the stored document comes back unchanged, read in one more command', async () => {
    const id = uniqueId('cust');
    await customers(acme).insertOnce({ _id: id, email: `${id}@example.com`, name: 'first' });
    const { result, commands } = await counter.during(() =>
      customers(acme).insertOnce({ _id: id, email: `${id}@example.com`, name: 'second' }),
    );
    expect(result).toEqual({ created: false, doc: { _id: id, email: `${id}@example.com`, name: 'first', ...acme } });
    expect(commands).toEqual({ insert: 1, find: 1 });
  });

  it('When another unique key is taken, then the holder filter finds the document that holds it', async () => {
    const email = `${uniqueId('shared')}@example.com`;
    const first = await customers(acme).insertOnce({ _id: uniqueId('cust'), email, name: 'first' });
    const second = await customers(acme).insertOnce({ _id: uniqueId('cust'), email, name: 'second' }, { email });
    expect(second).toEqual({ created: false, doc: first.doc });
  });

  it('When many insert one key at once, then exactly one stores its document and every other gets that one', async () => {
    // 20 at once: on DocumentDB (FerretDB 2) some of them lose a deadlock instead of meeting the duplicate key, and
    // are tried again (write-conflicts.ts); on every engine each of the 20 ends with the winner's document.
    const email = `${uniqueId('race')}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        customers(acme).insertOnce({ _id: uniqueId('cust'), email, name: `racer ${i}` }, { email }),
      ),
    );
    const winners = results.filter((r) => r.created);
    expect(winners).toHaveLength(1);
    expect(new Set(results.map((r) => r.doc?._id))).toEqual(new Set([winners[0]?.doc._id]));
    expect(await customers(acme).countDocuments({ email })).toBe(1);
  });

  it('When the key is held in another organization, then nothing of it is returned (doc null)', async () => {
    const id = uniqueId('cust');
    await customers(other).insertOnce({ _id: id, email: `${id}@example.com`, name: 'theirs' });
    expect(await customers(acme).insertOnce({ _id: id, email: `${id}@example.com`, name: 'mine' })).toEqual({
      created: false,
      doc: null,
    });
  });

  it('When the insert fails for another reason than a duplicate key, then that error reaches the caller', async () => {
    const closed = await connectMongo(inject('engines').mongoUrl, mongo.db.databaseName);
    await closed.close();
    const id = uniqueId('cust');
    await expect(
      scoped(closed.db.collection<Customer>('customers'), acme).insertOnce({
        _id: id,
        email: `${id}@example.com`,
        name: 'n',
      }),
    ).rejects.toThrow();
    expect(await customers(acme).findOne({ _id: id })).toBeNull();
  });
});
