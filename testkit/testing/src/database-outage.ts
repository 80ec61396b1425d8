import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@checkout/engines';

/**
 * A database outage on whatever engine a test runs on (the local default, or the one MONGODB_URL names), without
 * stopping that engine, which every other test file of the run shares and which an external engine does not let
 * a test stop: the code under test reaches the engine through this loopback proxy, and `stop()` makes the
 * database go away as a stopped server does for its clients (every open connection closed, new ones refused)
 * until `start()` accepts them again on the same address. What the engine itself does on a restart (keeping what
 * it acknowledged) is the engine's own property: docs/engines.md measures it.
 */
export interface DatabaseOutage {
  /** MONGODB_URL for the code under test: the engine's URL with its one host replaced by the proxy's address. */
  readonly mongoUrl: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function databaseOutageProxy(engineUrl: string): Promise<DatabaseOutage> {
  const { target, rewrite } = singleHost(engineUrl);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const onConnection = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.once('error', () => upstream.destroy());
    upstream.once('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  };
  let server: Server = createServer(onConnection);
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  let up = true;

  const stop = async () => {
    if (!up) return;
    up = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    mongoUrl: rewrite(`127.0.0.1:${port}`),
    stop,
    async start() {
      if (up) return;
      server = createServer(onConnection);
      // The port was ours a moment ago; another process taking it meanwhile is possible but rare: try again briefly.
      await waitFor(
        `the database proxy listening again on 127.0.0.1:${port}`,
        () =>
          listen(server, port).then(
            () => true,
            () => false,
          ),
        { deadlineMs: 10_000, intervalMs: 100 },
      );
      up = true;
    },
    close: stop,
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * The one host of a mongodb:// URL, and the URL with that host replaced. The driver must talk to that one server
 * through the proxy: a replica set's members would be reached at the addresses they announce, around the proxy,
 * so the rewritten URL connects directly (directConnection=true, no replicaSet).
 */
function singleHost(url: string): { target: { host: string; port: number }; rewrite: (address: string) => string } {
  const match = /^mongodb:\/\/((?:[^@/]*@)?)([^/?]+)(.*)$/.exec(url);
  const hosts = match?.[2]?.split(',') ?? [];
  if (!match || hosts.length !== 1) {
    throw new Error(
      'a database outage through a proxy needs a mongodb:// URL with one host (not mongodb+srv://, not a host list)',
    );
  }
  const [host, port] = splitHostPort(hosts[0] as string);
  const [path = '', query = ''] = (match[3] ?? '').split('?');
  const params = new URLSearchParams(query);
  params.delete('replicaSet');
  params.set('directConnection', 'true');
  return {
    target: { host, port },
    rewrite: (address) => `mongodb://${match[1] ?? ''}${address}${path || '/'}?${params.toString()}`,
  };
}

function splitHostPort(hostPort: string): [string, number] {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostPort);
  if (bracketed) return [bracketed[1] as string, Number(bracketed[2] ?? 27017)];
  const [host = '', port] = hostPort.split(':');
  return [host, Number(port ?? 27017)];
}
