// One-shot job: creates every service's MongoDB indexes (each service's src/store/indexes.ts) ahead of a
// rollout, so a new index is built before the pods that need it take traffic. The services also run the same
// ensureIndexes at start (idempotent: an existing index with the same name and key is left alone).
//   MONGODB_URL=mongodb://… node dist/create-indexes.mjs [gateway orders sessions webhook-dispatcher]
// Each service's database defaults to its own default (gateway, orders, sessions, webhooks); override with
// MONGODB_DATABASE_<SERVICE> (e.g. MONGODB_DATABASE_WEBHOOK_DISPATCHER), and the URL per service with
// MONGODB_URL_<SERVICE> when services have their own credentials.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMongo, ensureIndexes, type IndexDefinition } from '@checkout/mongo';
import { GATEWAY_INDEXES } from '@checkout/gateway/indexes';
import { ORDER_INDEXES } from '@checkout/orders/indexes';
import { SESSION_INDEXES } from '@checkout/sessions/indexes';
import { WEBHOOK_INDEXES } from '@checkout/webhook-dispatcher/indexes';

export interface ServiceIndexes {
  service: 'gateway' | 'orders' | 'sessions' | 'webhook-dispatcher';
  defaultDatabase: string;
  indexes: readonly IndexDefinition[];
}

/** Database defaults equal each service's MONGODB_DATABASE default (its config.ts). */
export const SERVICE_INDEXES: readonly ServiceIndexes[] = [
  { service: 'gateway', defaultDatabase: 'gateway', indexes: GATEWAY_INDEXES },
  { service: 'orders', defaultDatabase: 'orders', indexes: ORDER_INDEXES },
  { service: 'sessions', defaultDatabase: 'sessions', indexes: SESSION_INDEXES },
  { service: 'webhook-dispatcher', defaultDatabase: 'webhooks', indexes: WEBHOOK_INDEXES },
];

const suffix = (service: string) => service.toUpperCase().replace(/[^A-Z0-9]/g, '_');

export async function createIndexes(
  environment: Record<string, string | undefined>,
  only: readonly string[] = [],
): Promise<{ service: string; database: string; indexes: number }[]> {
  const unknown = only.filter((s) => !SERVICE_INDEXES.some((x) => x.service === s));
  if (unknown.length > 0)
    throw new Error(
      `create-indexes: unknown service(s) ${unknown.join(', ')}; expected ${SERVICE_INDEXES.map((x) => x.service).join(', ')}`,
    );
  const report: { service: string; database: string; indexes: number }[] = [];
  for (const entry of SERVICE_INDEXES) {
    if (only.length > 0 && !only.includes(entry.service)) continue;
    const url = environment[`MONGODB_URL_${suffix(entry.service)}`] ?? environment.MONGODB_URL;
    if (!url || !/^mongodb(\+srv)?:\/\//.test(url))
      throw new Error(`create-indexes: set MONGODB_URL (or MONGODB_URL_${suffix(entry.service)}) to a mongodb:// URL`);
    const database = environment[`MONGODB_DATABASE_${suffix(entry.service)}`] || entry.defaultDatabase;
    const mongo = await connectMongo(url, database, { appName: 'create-indexes', maxPoolSize: 2 });
    try {
      await ensureIndexes(mongo.db, entry.indexes);
    } finally {
      await mongo.close();
    }
    report.push({ service: entry.service, database, indexes: entry.indexes.length });
  }
  return report;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  createIndexes(process.env, process.argv.slice(2)).then(
    (report) => {
      for (const r of report) console.log(`${r.service}\tdatabase=${r.database}\tindexes=${r.indexes}`);
      process.exit(0);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
