import { MongoClient } from 'mongodb';
import { identifyMongoEngine, type MongoEngineIdentity } from './mongo-identity';

/** Names the engine behind a MongoDB URL from what it says it is (mongo-identity.ts): the label of its identity. */
export async function describeMongo(mongoUrl: string): Promise<string> {
  return (await identifyMongo(mongoUrl)).label;
}

/** Asks the server behind a MongoDB URL what it is: buildInfo, and serverStatus where buildInfo names no backend. */
export async function identifyMongo(mongoUrl: string): Promise<MongoEngineIdentity> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 });
  try {
    await client.connect();
    const admin = client.db('admin');
    const buildInfo = await admin.command({ buildInfo: 1 });
    // Only FerretDB 2 names its backend, and only there; an engine that refuses serverStatus is still named.
    const serverStatus =
      buildInfo.ferretdb !== undefined ? await admin.command({ serverStatus: 1 }).catch(() => undefined) : undefined;
    return identifyMongoEngine(buildInfo, serverStatus);
  } finally {
    await client.close().catch(() => {});
  }
}
