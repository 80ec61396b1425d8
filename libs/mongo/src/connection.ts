import { MongoClient, type Db, type Document, type ServerHeartbeatSucceededEvent } from 'mongodb';
import { DependencyUnavailableError } from '@checkout/errors';
import { engineOfHello, settingsFor, type EngineSettings, type MongoEngine } from './engine';
import { watchServerMonitors } from './monitor-watchdog';
import { openedClients } from './observed';

export interface MongoConnection {
  client: MongoClient;
  db: Db;
  /** Which engine the client reached (engine.ts): what decided its retryable writes and monitor watchdog. */
  engine: MongoEngine;
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
 * reconnects by itself when the server comes back. The client is opened with the driver's defaults, then the
 * first hello answer says which engine it reached (engine.ts); only the emulator gets the two workarounds its
 * server needs (retryable writes off, reopening the client so; the monitor watchdog, see monitor-watchdog.ts).
 * `options.engine` skips the detection.
 */
export async function connectMongo(
  url: string,
  database: string,
  options: {
    appName?: string;
    maxPoolSize?: number;
    logger?: MongoConnectionLogger;
    engine?: MongoEngine;
  } = {},
): Promise<MongoConnection> {
  let opened = await openClient(url, options, settingsFor(options.engine ?? 'mongodb'));
  // No heartbeat means no server monitor (a load balancer in front of MongoDB): nothing for the watchdog to
  // watch, and retryable writes are MongoDB's. The emulator always answers a heartbeat.
  const engine = options.engine ?? (opened.hello ? engineOfHello(opened.hello) : 'mongodb');
  const settings = settingsFor(engine);
  if (settings.retryWrites !== opened.settings.retryWrites) {
    // retryWrites is fixed when a client is made: a second one, before anything used the first.
    await opened.client.close().catch(() => {});
    opened = await openClient(url, options, settings);
  }
  const client = opened.client;
  if (openedClients.hasSubscribers) openedClients.publish(client);
  const logger = options.logger;
  const watchdog = settings.monitorWatchdog
    ? watchServerMonitors(client, {
        connectTimeoutMS: CONNECT_TIMEOUT_MS,
        heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
        onStalled: ({ address, stalledMs }) =>
          logger?.warn({ address, stalledMs }, 'mongodb server monitor stalled; reconnecting the client'),
        onRecovered: ({ attempts }) =>
          logger?.warn({ attempts }, 'mongodb client reconnected after a stalled server monitor'),
      })
    : null;
  const db = client.db(database);
  return {
    client,
    db,
    engine,
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      await watchdog?.stop();
      await client.close();
    },
  };
}

/** A connected client with `settings`, and the first hello answer its monitor got (undefined if none). */
async function openClient(
  url: string,
  options: { appName?: string; maxPoolSize?: number },
  settings: EngineSettings,
): Promise<{ client: MongoClient; hello: Document | undefined; settings: EngineSettings }> {
  const client = new MongoClient(url, {
    // Only while something observes the clients (observed.ts: counters in tests and benches, never production):
    // command monitoring costs an event per command.
    monitorCommands: openedClients.hasSubscribers,
    appName: options.appName,
    serverSelectionTimeoutMS: 3_000,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
    socketTimeoutMS: 20_000,
    maxPoolSize: options.maxPoolSize ?? 50,
    retryWrites: settings.retryWrites,
  });
  let hello: Document | undefined;
  const onHeartbeat = (event: ServerHeartbeatSucceededEvent) => {
    hello ??= event.reply;
  };
  // connect() resolves once a server is selectable, i.e. after its monitor's first check succeeded.
  client.on('serverHeartbeatSucceeded', onHeartbeat);
  try {
    await client.connect();
  } catch (err) {
    await client.close().catch(() => {});
    throw new DependencyUnavailableError('mongodb', err);
  } finally {
    client.off('serverHeartbeatSucceeded', onHeartbeat);
  }
  return { client, hello, settings };
}
