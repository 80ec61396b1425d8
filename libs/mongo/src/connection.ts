import { MongoClient, type Db } from 'mongodb';
import { DependencyUnavailableError } from '@checkout/errors';
import type { CommandCounter } from './command-counter';

export interface MongoConnection {
  client: MongoClient;
  db: Db;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Short timeouts so an outage surfaces as a 503 within seconds instead of a hung request; the driver
 * reconnects by itself when the server comes back.
 */
export async function connectMongo(
  url: string,
  database: string,
  options: { appName?: string; maxPoolSize?: number; commandCounter?: CommandCounter } = {},
): Promise<MongoConnection> {
  const client = new MongoClient(url, {
    // Only when counted (tests, bench): command monitoring costs an event per command.
    monitorCommands: options.commandCounter !== undefined,
    appName: options.appName,
    serverSelectionTimeoutMS: 3_000,
    connectTimeoutMS: 3_000,
    socketTimeoutMS: 20_000,
    maxPoolSize: options.maxPoolSize ?? 50,
    // The local engine (an emulator) has no sessions for retryable writes; we retry where we know it is safe.
    retryWrites: false,
  });
  options.commandCounter?.attach(client);
  try {
    await client.connect();
  } catch (err) {
    await client.close().catch(() => {});
    throw new DependencyUnavailableError('mongodb', err);
  }
  const db = client.db(database);
  return {
    client,
    db,
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await client.close();
    },
  };
}
