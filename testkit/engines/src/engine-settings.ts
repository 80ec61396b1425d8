/**
 * The local MongoDB-compatible engine (no Docker, no MONGODB_URL), from LOCAL_MONGO_ENGINE: mongo-java-server
 * with its H2 file backend by default (atomic single-document updates, indexed lookups; docs/engines.md), or
 * FerretDB 1.24 on SQLite, kept for comparison: its updates are not atomic and its lookups scan.
 */
export type LocalMongoEngine = 'mongo-java-server' | 'ferretdb';

export function localMongoEngine(env: Record<string, string | undefined> = process.env): LocalMongoEngine {
  const value = env.LOCAL_MONGO_ENGINE?.trim() || 'mongo-java-server';
  if (value !== 'mongo-java-server' && value !== 'ferretdb') {
    throw new Error(
      `LOCAL_MONGO_ENGINE must be "mongo-java-server" (the default) or "ferretdb", not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function parseBrokers(value: string | undefined): string[] | undefined {
  const brokers = (value ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return brokers.length > 0 ? brokers : undefined;
}

export const defaultLog = (line: string) => {
  process.stderr.write(`[engines] ${line}\n`);
};
