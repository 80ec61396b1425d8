import { describe, expect, it } from 'vitest';
import { listedBroadcast, routedFilters, shardedBy, shardKeyFields, targetOf } from './shard-keys';

const TENANT_AND_ID = { organizationId: 1, mode: 1, _id: 1 } as const;

describe('targetOf: where a filter goes on a sharded cluster', () => {
  it('When every shard key field is held to one value, then one shard; an unsharded collection is always one shard', () => {
    expect(targetOf(TENANT_AND_ID, { _id: 'o1', organizationId: 'org', mode: 'test', status: 'open' })).toBe('shard');
    expect(targetOf(TENANT_AND_ID, { _id: { $eq: 'o1' }, organizationId: 'org', mode: 'test' })).toBe('shard');
    expect(targetOf(TENANT_AND_ID, { $and: [{ _id: 'o1', organizationId: 'org', mode: 'test' }, { x: 1 }] })).toBe(
      'shard',
    );
    expect(targetOf({ _id: 'hashed' }, { _id: 'k', token: 't' })).toBe('shard');
    expect(targetOf(null, {})).toBe('shard');
  });

  it("When a ranged key's leading fields are held, then the range of that prefix; a hashed key's never", () => {
    expect(targetOf(TENANT_AND_ID, { organizationId: 'org', mode: 'test', createdAt: { $lt: new Date() } })).toBe(
      'range',
    );
    expect(targetOf(TENANT_AND_ID, { organizationId: 'org', mode: 'test', _id: { $in: ['a', 'b'] } })).toBe('range');
    expect(targetOf({ _id: 'hashed' }, { organizationId: 'org', mode: 'test' })).toBe('broadcast');
  });

  it('When the first field is missing, a range or a list, then every shard', () => {
    expect(targetOf(TENANT_AND_ID, { _id: 'o1' })).toBe('broadcast');
    expect(targetOf(TENANT_AND_ID, { organizationId: { $in: ['a', 'b'] }, mode: 'test', _id: 'x' })).toBe('broadcast');
    expect(targetOf({ _id: 'hashed' }, { _id: { $gt: 'a' } })).toBe('broadcast');
    expect(targetOf({ _id: 'hashed' }, {})).toBe('broadcast');
  });
});

describe('routedFilters: the filters a command is routed by', () => {
  it('When commands are read, then each gives the filters of its kind, and commands on no documents give none', () => {
    expect(routedFilters('find', { find: 'orders', filter: { _id: 'a' } })).toEqual({
      collection: 'orders',
      filters: [{ _id: 'a' }],
    });
    expect(routedFilters('update', { update: 'orders', updates: [{ q: { _id: 'a' } }, { q: { _id: 'b' } }] })).toEqual({
      collection: 'orders',
      filters: [{ _id: 'a' }, { _id: 'b' }],
    });
    expect(routedFilters('delete', { delete: 'orders', deletes: [{ q: { x: 1 }, limit: 0 }] })?.filters).toEqual([
      { x: 1 },
    ]);
    expect(routedFilters('findAndModify', { findAndModify: 'orders', query: { _id: 'a' } })?.filters).toEqual([
      { _id: 'a' },
    ]);
    expect(routedFilters('insert', { insert: 'orders', documents: [{ _id: 'a', n: 1 }] })?.filters).toEqual([
      { _id: 'a', n: 1 },
    ]);
    expect(
      routedFilters('aggregate', { aggregate: 'orders', pipeline: [{ $match: { mode: 'test' } }, { $count: 'n' }] })
        ?.filters,
    ).toEqual([{ mode: 'test' }]);
    expect(routedFilters('aggregate', { aggregate: 'orders', pipeline: [{ $group: { _id: 1 } }] })?.filters).toEqual([
      {},
    ]);
    expect(routedFilters('getMore', { getMore: 1, collection: 'orders' })).toBeNull();
    expect(routedFilters('createIndexes', { createIndexes: 'orders', indexes: [] })).toBeNull();
    expect(routedFilters('ping', { ping: 1 })).toBeNull();
  });
});

describe('declarations', () => {
  const declared = shardedBy('sessions', {
    key: { _id: 'hashed' },
    why: 'found by id',
    broadcasts: [{ command: 'find', fields: ['status', 'expiresAt'], by: 'sweep', why: 'the expiry sweep' }],
  });

  it('When a broadcast is listed for its command and filter fields (any order), then it is found; otherwise not', () => {
    expect(listedBroadcast(declared, 'find', { expiresAt: { $lte: 1 }, status: 'pending' })?.by).toBe('sweep');
    expect(listedBroadcast(declared, 'find', { status: 'pending' })).toBeUndefined();
    expect(listedBroadcast(declared, 'update', { expiresAt: 1, status: 'pending' })).toBeUndefined();
  });

  it('When the fields of a key are asked for, then they come in order; an undeclared collection is an error', () => {
    const all = [declared, shardedBy('orders', { key: TENANT_AND_ID, why: 'tenant' })];
    expect(shardKeyFields(all, 'orders')).toEqual(['organizationId', 'mode', '_id']);
    expect(shardKeyFields([shardedBy('leases', { key: null, why: 'small' })], 'leases')).toEqual([]);
    expect(() => shardKeyFields(all, 'nothing')).toThrow(/no sharding declared/);
  });
});
