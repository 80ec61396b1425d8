import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface RunningServer {
  server: Server;
  url: string;
  port: number;
  /** Stops accepting connections, lets in-flight requests finish within graceMs, then drops the rest. */
  close(graceMs?: number): Promise<void>;
}

export async function listen(app: Koa, options: { host: string; port: number }): Promise<RunningServer> {
  const server = createServer(app.callback());
  // Longer than a typical load balancer idle timeout, so the proxy (not us) closes idle keep-alive sockets.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
