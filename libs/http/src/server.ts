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

export interface ListenOptions {
  host: string;
  port: number;
  /** Node's server.headersTimeout: a client gets this long to send all its headers (408 and closed after). */
  headersTimeoutMs?: number;
  /** Node's server.requestTimeout: the whole request, body included, must arrive within this (408 after). */
  requestTimeoutMs?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export async function listen(app: Koa, options: ListenOptions): Promise<RunningServer> {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  // Node enforces both timeouts from a periodic sweep (30 s by default); sweeping at a quarter of the shorter one
  // keeps a slow client (a byte a second) from holding a connection much past its deadline.
  const connectionsCheckingInterval = Math.min(30_000, Math.max(50, Math.floor(headersTimeout / 4)));
  const handle = app.callback();
  const server = createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval }, (req, res) => {
    void handle(req, res);
  });
  // Idle keep-alive sockets outlive a typical load balancer's idle timeout, so the proxy (not us) closes them.
  server.keepAliveTimeout = 65_000;
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
