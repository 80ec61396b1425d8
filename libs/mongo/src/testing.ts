// The lib's test helpers (`@checkout/mongo/testing`): production code never imports this entry point (a lint rule).
import { AsyncLocalStorage } from 'node:async_hooks';
import { MongoClient, type Db, type Document } from 'mongodb';
import { openedClients } from './observed';

/** The counter whose watch() the current call runs in, if any. */
const watching = new AsyncLocalStorage<{ attach(client: MongoClient): void }>();
openedClients.subscribe((client) => watching.getStore()?.attach(client as MongoClient));

/**
 * Database commands a client sends, by command name, from the driver's command monitoring: the round-trip
 * budget of an operation is a count (deterministic, unlike a time), asserted by component tests and printed
 * by the bench. Connection handshakes and heartbeats are not commands here, as they are no request's cost.
 * A service is counted from outside: `await counter.watch(() => app.start())` counts every client connectMongo
 * opens during its start, whose commands are then monitored (connection.ts turns monitoring on while anything
 * observes the clients, as loading this module does).
 */
export class CommandCounter {
  private readonly counts = new Map<string, number>();

  /** Runs `fn` (a service's start, a test's own connectMongo) and counts the clients connectMongo opens in it. */
  watch<T>(fn: () => Promise<T>): Promise<T> {
    return watching.run(this, fn);
  }

  /** Subscribes to a client created with `monitorCommands: true`. */
  attach(client: MongoClient): void {
    client.on('commandStarted', (event) => {
      // The driver ends implicit sessions in the background on close; no request pays for that.
      if (event.commandName === 'endSessions') return;
      this.counts.set(event.commandName, (this.counts.get(event.commandName) ?? 0) + 1);
    });
  }

  total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  /** Counts by command name, e.g. { find: 1, update: 1 }. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** The commands `fn` caused (and anything else this client sent meanwhile: keep background work quiet). */
  async during<T>(fn: () => Promise<T>): Promise<{ result: T; commands: Record<string, number>; total: number }> {
    const before = new Map(this.counts);
    const result = await fn();
    const commands: Record<string, number> = {};
    let total = 0;
    for (const [name, n] of this.counts) {
      const delta = n - (before.get(name) ?? 0);
      if (delta > 0) {
        commands[name] = delta;
        total += delta;
      }
    }
    return { result, commands, total };
  }
}

/** One database command as the driver's command monitoring saw it. */
export interface LoggedCommand {
  commandName: string;
  databaseName: string;
  command: Document;
}

/**
 * Every database command of the clients opened inside `watch` (as CommandCounter counts them), kept whole: for
 * tests that read what a command asked, such as whether its filter carries its collection's shard key.
 */
export class CommandLog {
  readonly commands: LoggedCommand[] = [];

  watch<T>(fn: () => Promise<T>): Promise<T> {
    return watching.run(this, fn);
  }

  attach(client: MongoClient): void {
    client.on('commandStarted', (event) => {
      this.commands.push({ commandName: event.commandName, databaseName: event.databaseName, command: event.command });
    });
  }
}

/** A database of a test file's own on the run's engine; `stop` drops it and closes its client. */
export async function openTestDatabase(url: string, name: string): Promise<{ db: Db; stop(): Promise<void> }> {
  const client = await MongoClient.connect(url, { retryWrites: false });
  const db = client.db(name);
  return {
    db,
    stop: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}
