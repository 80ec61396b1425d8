import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATIONS_PATH, renderShardKeyTable, SERVICE_SHARDING, withTable } from '../../scripts/shard-keys';

// Every collection has one sharding declaration (libs/mongo's shardedBy, beside its indexes), every unique index
// of a sharded collection starts with its shard key (MongoDB shards nothing else) or is named with the release that
// drops it, and docs/operations.md's table ("Shard keys") is what the declarations write.

/** Whether MongoDB can keep `index` unique on a collection sharded by `key`. */
function prefixedBy(key: Readonly<Record<string, 1 | 'hashed'>>, index: Readonly<Record<string, unknown>>): boolean {
  const keyFields = Object.entries(key);
  const indexFields = Object.entries(index);
  // A hashed key backs no unique index but _id's; a ranged key must be the index's first fields, in order.
  if (keyFields.some(([, kind]) => kind === 'hashed')) return false;
  return keyFields.every(([field], i) => indexFields[i]?.[0] === field);
}

describe('shard keys', () => {
  it('When the services are read, then each collection is declared once and each declaration is of a collection', () => {
    for (const { service, collections, declarations } of SERVICE_SHARDING) {
      const declared = declarations.map((d) => d.collection);
      expect(declared.length, `${service}: a collection declared twice`).toBe(new Set(declared).size);
      expect([...declared].sort(), service).toEqual([...collections].sort());
    }
  });

  it('When a collection is sharded, then each unique index starts with its shard key, or is retiring with its release', () => {
    const blocking: string[] = [];
    for (const { indexes, declarations } of SERVICE_SHARDING) {
      for (const d of declarations) {
        if (d.key === null) continue;
        const retiring = new Set(d.retiring.map((r) => r.index));
        for (const index of indexes.filter((i) => i.collection === d.collection && i.unique)) {
          if (!prefixedBy(d.key, index.key as Record<string, unknown>) && !retiring.has(index.name))
            blocking.push(`${d.collection}.${index.name}`);
        }
        for (const name of retiring) {
          expect(indexes.some((i) => i.collection === d.collection && i.name === name && i.unique)).toBe(true);
        }
      }
    }
    expect(blocking).toEqual([]);
  });

  it('When docs/operations.md is read, then its shard-key table is what the declarations write (npm run shards -- --docs)', () => {
    const doc = readFileSync(OPERATIONS_PATH, 'utf8');
    expect(withTable(doc, renderShardKeyTable())).toBe(doc);
  });

  it('When the prefix rule is asked, then a ranged key prefixes its own fields only and a hashed key nothing', () => {
    expect(prefixedBy({ organizationId: 1, mode: 1 }, { organizationId: 1, mode: 1, email: 1 })).toBe(true);
    expect(prefixedBy({ organizationId: 1, mode: 1, _id: 1 }, { organizationId: 1, mode: 1, uniqueKey: 1 })).toBe(
      false,
    );
    expect(prefixedBy({ keyId: 'hashed' }, { keyId: 1 })).toBe(false);
  });
});
