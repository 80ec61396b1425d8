import type { Document } from 'mongodb';
import { LEASES_COLLECTION } from './lease';
import { MIGRATIONS_COLLECTION } from './migrations';

/** A shard key: its fields in order, each ranged (1) or hashed. */
export type ShardKey = Readonly<Record<string, 1 | 'hashed'>>;

/** A query the collection's shard key does not target, on purpose: it goes to every shard. */
export interface Broadcast {
  /** The database command (find, update, delete, findAndModify, aggregate, count, distinct). */
  command: string;
  /** The top-level fields of its filter (an aggregate's first $match), in any order: they name the query. */
  fields: readonly string[];
  /** The store function that sends it. */
  by: string;
  /** Why it may go to every shard: off the request path, or what targeting it would cost. */
  why: string;
}

/**
 * How one collection would be sharded: its shard key (null: it stays unsharded, on its database's primary shard,
 * which is one shard, so every command on it is targeted), why, and the queries that broadcast. One declaration
 * per collection, next to its indexes (a service's store/indexes.ts): docs/operations.md's table ("Past one replica
 * set") and the shard-targeting test read it.
 */
export interface ShardingDeclaration {
  collection: string;
  key: ShardKey | null;
  why: string;
  broadcasts: readonly Broadcast[];
  /**
   * Unique indexes the shard key does not prefix, kept while a running release relies on them (MongoDB refuses to
   * shard the collection until they are dropped): each with the release that may drop it.
   */
  retiring: readonly RetiringIndex[];
}

export interface RetiringIndex {
  index: string;
  /** When it may be dropped, and what holds the uniqueness instead. */
  dropWhen: string;
}

export function shardedBy(
  collection: string,
  declaration: {
    key: ShardKey | null;
    why: string;
    broadcasts?: readonly Broadcast[];
    retiring?: readonly RetiringIndex[];
  },
): ShardingDeclaration {
  const { key, why, broadcasts = [], retiring = [] } = declaration;
  return { collection, key, why, broadcasts, retiring };
}

/** A shard key as the docs and the shell write it: `{ organizationId: 1, mode: 1, _id: 1 }`, or `unsharded`. */
export function formatShardKey(key: ShardKey | null): string {
  if (key === null) return 'unsharded';
  const fields = Object.entries(key).map(([field, kind]) => `${field}: ${kind === 1 ? '1' : "'hashed'"}`);
  return `{ ${fields.join(', ')} }`;
}

/**
 * Where a filter goes on a sharded cluster: `shard` (equality on every field of the shard key, or an unsharded
 * collection: one shard), `range` (equality on a leading part of a ranged key, such as organizationId and mode: the
 * chunks of that prefix, one shard unless that merchant's data spans several), `broadcast` (every shard).
 */
export type Target = 'shard' | 'range' | 'broadcast';

/** Whether a filter holds `field` to exactly one value (`v`, `{$eq: v}`, or inside an `$and`). */
function hasEquality(filter: Document, field: string): boolean {
  if (!(field in filter)) {
    const and: unknown = filter.$and;
    return (
      Array.isArray(and) &&
      and.some((part: unknown) => typeof part === 'object' && part !== null && hasEquality(part, field))
    );
  }
  const value: unknown = filter[field];
  if (value === null || typeof value !== 'object' || value instanceof Date) return value !== undefined;
  if (Array.isArray(value)) return false;
  const operators = Object.keys(value);
  if (operators.length === 0) return true;
  if (!operators.every((op) => op.startsWith('$'))) return true;
  return '$eq' in value;
}

export function targetOf(key: ShardKey | null, filter: Document): Target {
  if (key === null) return 'shard';
  const fields = Object.keys(key);
  const held = fields.map((field) => hasEquality(filter, field));
  if (held.every(Boolean)) return 'shard';
  const ranged = fields.every((field) => key[field] === 1);
  return ranged && held[0] === true ? 'range' : 'broadcast';
}

/** The broadcast a declaration lists for this command and filter, if any. */
export function listedBroadcast(
  declaration: ShardingDeclaration,
  command: string,
  filter: Document,
): Broadcast | undefined {
  const fields = Object.keys(filter).sort().join(',');
  return declaration.broadcasts.find((b) => b.command === command && [...b.fields].sort().join(',') === fields);
}

/**
 * The filters a database command routes by: a find's, count's and distinct's query, each update's and delete's,
 * findAndModify's, an aggregate's first $match (none: every shard), each inserted document. null for commands
 * that read no collection's documents (hello, createIndexes, getMore of a cursor already routed, …).
 */
export function routedFilters(
  commandName: string,
  command: Document,
): { collection: string; filters: Document[] } | null {
  const collection: unknown = command[commandName];
  if (typeof collection !== 'string') return null;
  switch (commandName) {
    case 'find':
      return { collection, filters: [(command.filter as Document | undefined) ?? {}] };
    case 'count':
    case 'distinct':
    case 'findAndModify':
      return { collection, filters: [(command.query as Document | undefined) ?? {}] };
    case 'update':
      return { collection, filters: (command.updates as Array<{ q: Document }>).map((u) => u.q) };
    case 'delete':
      return { collection, filters: (command.deletes as Array<{ q: Document }>).map((d) => d.q) };
    case 'insert':
      return { collection, filters: command.documents as Document[] };
    case 'aggregate': {
      const first = (command.pipeline as Document[])[0];
      return { collection, filters: [(first?.$match as Document | undefined) ?? {}] };
    }
    default:
      return null;
  }
}

/** The collections the runtime keeps in every service's database (migrations.ts, lease.ts). */
export const RUNTIME_SHARDING: readonly ShardingDeclaration[] = [
  shardedBy(MIGRATIONS_COLLECTION, { key: null, why: 'one document per migration step' }),
  shardedBy(LEASES_COLLECTION, {
    key: null,
    why: "one document per singleton job (a sweep's round, a migration step, a merchant's recovery, D44)",
  }),
];

/** The fields of `collection`'s shard key among `declarations` (none for an unsharded one). */
export function shardKeyFields(declarations: readonly ShardingDeclaration[], collection: string): string[] {
  const declared = declarations.find((d) => d.collection === collection);
  if (!declared) throw new Error(`no sharding declared for ${collection}`);
  return Object.keys(declared.key ?? {});
}
