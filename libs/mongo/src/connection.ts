import { MongoClient, type Db } from 'mongodb';
import { DependencyUnavailableError } from '@checkout/errors';
import type { CommandCounter } from './command-counter';
import { watchServerMonitors } from './monitor-watchdog';

export interface MongoConnection {
  client: MongoClient;
  db: Db;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Where connectMongo reports a reconnect of its own (pino's shape). */
export interface MongoConnectionLogger {
  warn(details: object, message: string): void;
}

const CONNECT_TIMEOUT_MS = 3_000;
/** The driver's default, stated because the monitor watchdog's bound is computed from it. */
const HEARTBEAT_FREQUENCY_MS = 10_000;

/**
 * Short timeouts so an outage surfaces as a 503 within seconds instead of a hung request; the driver
 * reconnects by itself when the server comes back, and where its server monitor wedges instead (see
 * monitor-watchdog.ts), the watchdog reconnects the client.
 */
export async function connectMongo(
  url: string,
  database: string,
  options: { appName?: string; maxPoolSize?: number; commandCounter?: CommandCounter; logger?: MongoConnectionLogger } = {},
): Promise<MongoConnection> {
  const client = new MongoClient(url, {
    // Only when counted (tests, bench): command monitoring costs an event per command.
    monitorCommands: options.commandCounter !== undefined,
    appName: options.appName,
    serverSelectionTimeoutMS: 3_000,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
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
  const logger = options.logger;
  const watchdog = watchServerMonitors(client, {
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
    onStalled: ({ address, stalledMs }) => logger?.warn({ address, stalledMs }, 'mongodb server monitor stalled; reconnecting the client'),
    onRecovered: ({ attempts }) => logger?.warn({ attempts }, 'mongodb client reconnected after a stalled server monitor'),
  });
  const db = client.db(database);
  return {
    client,
    db,
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await watchdog.stop();
      await client.close();
    },
  };
}
