// The shard keys, declared once beside each service's indexes (libs/mongo's shardedBy), and what reads them.
//   npm run shards                   the shard-targeting journey (test-e2e/src/shard-targeting.e2e.test.ts) on
//                                    engines of its own: the share of targeted commands per collection
//   npm run shards -- --docs         writes the table of docs/operations.md ("Shard keys") from the declarations
//   npm run shards -- --check        exit 1 if that table is stale (test-system/policy/shard-keys.test.ts)
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatShardKey, RUNTIME_SHARDING, type IndexDefinition, type ShardingDeclaration } from '@checkout/mongo';
import { COLLECTIONS as GATEWAY, GATEWAY_INDEXES, GATEWAY_SHARDING } from '@checkout/gateway/indexes';
import { COLLECTIONS as ORDERS, ORDER_INDEXES, ORDER_SHARDING } from '@checkout/orders/indexes';
import { COLLECTIONS as SESSIONS, SESSION_INDEXES, SESSION_SHARDING } from '@checkout/sessions/indexes';
import { COLLECTIONS as DISPATCHER, WEBHOOK_INDEXES, WEBHOOK_SHARDING } from '@checkout/webhook-dispatcher/indexes';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const OPERATIONS_PATH = resolve(ROOT, 'docs/operations.md');
const BEGIN = '<!-- shard-keys: written by `npm run shards -- --docs` from the declarations -->';
const END = '<!-- shard-keys: end -->';

export interface ServiceSharding {
  service: string;
  /** Every collection the service names: its COLLECTIONS and those its indexes name (GridFS's). */
  collections: readonly string[];
  indexes: readonly IndexDefinition[];
  declarations: readonly ShardingDeclaration[];
}

const withIndexed = (named: Record<string, string>, indexes: readonly IndexDefinition[]) => [
  ...new Set([...Object.values(named), ...indexes.map((i) => i.collection)]),
];

export const SERVICE_SHARDING: readonly ServiceSharding[] = [
  {
    service: 'gateway',
    collections: withIndexed(GATEWAY, GATEWAY_INDEXES),
    indexes: GATEWAY_INDEXES,
    declarations: GATEWAY_SHARDING,
  },
  {
    service: 'orders',
    collections: withIndexed(ORDERS, ORDER_INDEXES),
    indexes: ORDER_INDEXES,
    declarations: ORDER_SHARDING,
  },
  {
    service: 'sessions',
    collections: withIndexed(SESSIONS, SESSION_INDEXES),
    indexes: SESSION_INDEXES,
    declarations: SESSION_SHARDING,
  },
  {
    service: 'webhook-dispatcher',
    collections: withIndexed(DISPATCHER, WEBHOOK_INDEXES),
    indexes: WEBHOOK_INDEXES,
    declarations: WEBHOOK_SHARDING,
  },
  { service: 'every service', collections: ['migrations', 'leases'], indexes: [], declarations: RUNTIME_SHARDING },
];

function row(service: string, d: ShardingDeclaration): string {
  const retiring = d.retiring.map((r) => ` Not sharded until \`${r.index}\` is dropped: ${r.dropWhen}.`).join('');
  const broadcasts = d.broadcasts.map((b) => `${b.command} {${b.fields.join(', ')}} by ${b.by}: ${b.why}`);
  return `| \`${d.collection}\` (${service}) | \`${formatShardKey(d.key)}\` | ${d.why}.${retiring} | ${
    broadcasts.length === 0 ? 'none' : broadcasts.join('; ')
  } |`;
}

/** The table, one row per declared collection, service by service. */
export function renderShardKeyTable(): string {
  return [
    BEGIN,
    '| collection (service) | shard key | why | commands that may go to every shard, and why |',
    '|---|---|---|---|',
    ...SERVICE_SHARDING.flatMap(({ service, declarations }) => declarations.map((d) => row(service, d))),
    END,
  ].join('\n');
}

/** operations.md with its table replaced by `table`; null when the markers are missing. */
export function withTable(doc: string, table: string): string | null {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) return null;
  return doc.slice(0, begin) + table + doc.slice(end + END.length);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const current = readFileSync(OPERATIONS_PATH, 'utf8');
  const rendered = withTable(current, renderShardKeyTable());
  if (process.argv.includes('--docs') || process.argv.includes('--check')) {
    if (rendered === null) {
      console.error(`docs/operations.md has no shard-key table markers (${BEGIN} … ${END})`);
      process.exit(1);
    }
    if (process.argv.includes('--check')) {
      if (rendered !== current) {
        console.error('the shard-key table of docs/operations.md is stale: run `npm run shards -- --docs`.');
        process.exit(1);
      }
      console.log('the shard-key table of docs/operations.md is up to date.');
    } else {
      writeFileSync(OPERATIONS_PATH, rendered);
      console.log(`wrote the shard-key table of ${OPERATIONS_PATH}`);
    }
  } else {
    const run = spawnSync(
      'npx',
      ['tsx', 'scripts/test.ts', '--project', 'e2e', 'test-e2e/src/shard-targeting.e2e.test.ts'],
      { cwd: ROOT, stdio: 'inherit' },
    );
    process.exit(run.status ?? 1);
  }
}
