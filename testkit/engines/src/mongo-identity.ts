import type { Document } from 'mongodb';

/**
 * Which kind of MongoDB-compatible server answered, as far as tests and logs care: what to expect of its plans
 * (`explain`) and its atomicity (docs/engines.md).
 * - `mongodb`: MongoDB itself.
 * - `ferretdb`: FerretDB, which speaks the wire protocol in front of another database: PostgreSQL with
 *   DocumentDB from version 2 on (the engine Azure Cosmos DB for MongoDB vCore also builds on), SQLite or plain
 *   PostgreSQL in 1.x.
 * - `mongo-java-server`: the emulator the project runs locally by default.
 */
export type MongoEngineFamily = 'mongodb' | 'ferretdb' | 'mongo-java-server';

export interface MongoEngineIdentity {
  family: MongoEngineFamily;
  /**
   * For logs and bench lines: "MongoDB 7.0.14", "FerretDB v2.5.0 on PostgreSQL 15.18 with DocumentDB 0.106.0
   * (MongoDB 7.0.77 wire)", "FerretDB v1.24.0 (MongoDB 7.0.42 wire)", "mongo-java-server (MongoDB 4.4.0 wire)".
   * "wire" marks the MongoDB version a server announces without being MongoDB.
   */
  label: string;
}

/**
 * Names the engine from what it says it is: its `buildInfo` answer and, where that names no backend (FerretDB 2),
 * its `serverStatus` answer. Every server announces a MongoDB `version` (FerretDB 2.5 says 7.0.77), so the version
 * alone never tells MongoDB from another engine:
 * - FerretDB 2 adds a `ferretdb` document to buildInfo ({version, package}) and names its backend in
 *   serverStatus's `ferretdb` document (`postgresql`, `documentdb`); FerretDB 1.x adds `ferretdbVersion`.
 * - mongo-java-server answers buildInfo with `version` and little else: no `gitVersion`, which MongoDB always
 *   reports.
 */
export function identifyMongoEngine(buildInfo: Document, serverStatus?: Document): MongoEngineIdentity {
  const wire = typeof buildInfo.version === 'string' ? buildInfo.version : 'unknown version';
  const ferretdb = buildInfo.ferretdb as Document | undefined;
  if (isDocument(ferretdb) || typeof buildInfo.ferretdbVersion === 'string') {
    const version = isDocument(ferretdb) ? String(ferretdb.version) : String(buildInfo.ferretdbVersion);
    const backend = ferretDbBackend(serverStatus);
    return {
      family: 'ferretdb',
      label: `FerretDB ${version}${backend ? ` on ${backend}` : ''} (MongoDB ${wire} wire)`,
    };
  }
  if (buildInfo.gitVersion === undefined)
    return { family: 'mongo-java-server', label: `mongo-java-server (MongoDB ${wire} wire)` };
  return { family: 'mongodb', label: `MongoDB ${wire}` };
}

/**
 * "PostgreSQL 15.18 with DocumentDB 0.106.0" from FerretDB 2's serverStatus, whose `ferretdb.postgresql` is
 * PostgreSQL's `version()` ("PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by …")
 * and `ferretdb.documentdb` DocumentDB's ("0.106.0 gitref: HEAD sha:beb9d25d98 buildId:0"). Undefined when it
 * names neither.
 */
function ferretDbBackend(serverStatus: Document | undefined): string | undefined {
  const status = serverStatus?.ferretdb as Document | undefined;
  if (!isDocument(status)) return undefined;
  const postgresql =
    typeof status.postgresql === 'string' ? /^PostgreSQL [^\s,]+/.exec(status.postgresql)?.[0] : undefined;
  const documentdb =
    typeof status.documentdb === 'string' && status.documentdb.trim() !== ''
      ? `DocumentDB ${status.documentdb.trim().split(/\s+/)[0]}`
      : undefined;
  if (postgresql && documentdb) return `${postgresql} with ${documentdb}`;
  return postgresql ?? documentdb;
}

function isDocument(value: unknown): value is Document {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
