import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';

// A real HTTP server standing in for a merchant's webhook endpoint (Svix's TestReceiver). Every
// request is recorded with its headers and raw body; each path can be told how to answer.

export type ReceiverBehaviour =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'redirect'; location: string; status?: 301 | 302 | 303 | 307 | 308 }
  | { kind: 'slow'; delayMs: number; status?: number }
  /** Fails the first `failures` attempts of each delivery (by X-Service-Delivery-Id) with `status`, then 200. */
  | { kind: 'flapping'; failures: number; status?: number };

export const ANSWER = {
  ok: { kind: 'status', status: 200, body: 'ok' },
  error: { kind: 'status', status: 500, body: 'boom' },
  gone: { kind: 'status', status: 410, body: 'gone' },
  hang: { kind: 'hang' },
  redirect: (location: string): ReceiverBehaviour => ({ kind: 'redirect', location, status: 302 }),
  slow: (delayMs: number, status = 200): ReceiverBehaviour => ({ kind: 'slow', delayMs, status }),
  flapping: (failures: number, status = 503): ReceiverBehaviour => ({ kind: 'flapping', failures, status }),
  throttled: (retryAfter: string, status: 429 | 503 = 429): ReceiverBehaviour => ({
    kind: 'status',
    status,
    body: 'slow down',
    headers: { 'retry-after': retryAfter },
  }),
} as const satisfies Record<string, ReceiverBehaviour | ((...args: never[]) => ReceiverBehaviour)>;

export interface ReceivedRequest {
  method: string;
  path: string;
  /** Lower-cased names, as Node gives them. */
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
  receivedAt: Date;
}

export interface WebhookReceiver {
  /** Absolute URL of a path on this receiver, e.g. url('/hooks/a'). */
  url(path?: string): string;
  readonly port: number;
  /** How `path` answers from now on (default for every path: 200). */
  answer(path: string, behaviour: ReceiverBehaviour): void;
  /** Every request so far, optionally only those to `path`. */
  deliveries(path?: string): ReceivedRequest[];
  /** The next request not yet returned by nextDelivery (optionally on `path`); rejects after timeoutMs. */
  nextDelivery(options?: { timeoutMs?: number; path?: string }): Promise<ReceivedRequest>;
  /** Forgets recorded requests (behaviours stay). */
  clear(): void;
  close(): Promise<void>;
}

interface ReceiverState {
  received: ReceivedRequest[];
  behaviours: Map<string, ReceiverBehaviour>;
  /** Requests already returned by nextDelivery. */
  consumed: Set<ReceivedRequest>;
  waiters: Set<() => void>;
  /** Releases of requests held open ('slow', 'hang'), all called on close. */
  hanging: Set<() => void>;
  /** Requests seen per delivery id, for 'flapping'. */
  attemptsPerDelivery: Map<string, number>;
}

async function record(ctx: Koa.Context, state: ReceiverState): Promise<ReceivedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const request: ReceivedRequest = {
    method: ctx.method,
    path: ctx.path,
    headers: { ...ctx.req.headers },
    body: Buffer.concat(chunks).toString('utf8'),
    receivedAt: new Date(),
  };
  state.received.push(request);
  return request;
}

async function behave(
  ctx: Koa.Context,
  request: ReceivedRequest,
  behaviour: ReceiverBehaviour,
  state: ReceiverState,
): Promise<void> {
  switch (behaviour.kind) {
    case 'status':
      ctx.status = behaviour.status;
      for (const [name, value] of Object.entries(behaviour.headers ?? {})) ctx.set(name, value);
      ctx.body = behaviour.body ?? '';
      return;
    case 'redirect':
      ctx.status = behaviour.status ?? 302;
      ctx.set('location', behaviour.location);
      ctx.body = '';
      return;
    case 'slow':
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, behaviour.delayMs);
        state.hanging.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      ctx.status = behaviour.status ?? 200;
      ctx.body = 'slow';
      return;
    case 'flapping': {
      const deliveryId = request.headers['x-service-delivery-id'];
      const key = `${ctx.path} ${typeof deliveryId === 'string' ? deliveryId : ''}`;
      const seen = (state.attemptsPerDelivery.get(key) ?? 0) + 1;
      state.attemptsPerDelivery.set(key, seen);
      ctx.status = seen <= behaviour.failures ? (behaviour.status ?? 503) : 200;
      ctx.body = seen <= behaviour.failures ? 'flapping: down' : 'flapping: up';
      return;
    }
    case 'hang':
      // Never answers; released only when the receiver closes (its sockets are destroyed then).
      await new Promise<void>((resolve) => state.hanging.add(resolve));
      return;
  }
}

function nextDelivery(
  state: ReceiverState,
  { timeoutMs = 10_000, path }: { timeoutMs?: number; path?: string } = {},
): Promise<ReceivedRequest> {
  const { received, consumed, waiters } = state;
  return new Promise<ReceivedRequest>((resolve, reject) => {
    const take = () => received.find((r) => !consumed.has(r) && (path === undefined || r.path === path));
    const ready = take();
    if (ready) {
      consumed.add(ready);
      resolve(ready);
      return;
    }
    const wake = () => {
      const next = take();
      if (!next) return;
      consumed.add(next);
      cleanup();
      resolve(next);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `no webhook delivery${path ? ` to ${path}` : ''} within ${timeoutMs} ms (received ${received.length} in total)`,
        ),
      );
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      waiters.delete(wake);
    };
    waiters.add(wake);
  });
}

async function listen(app: Koa, host: string): Promise<Server> {
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export async function startWebhookReceiver(options: { host?: string } = {}): Promise<WebhookReceiver> {
  const host = options.host ?? '127.0.0.1';
  const state: ReceiverState = {
    received: [],
    behaviours: new Map(),
    consumed: new Set(),
    waiters: new Set(),
    hanging: new Set(),
    attemptsPerDelivery: new Map(),
  };
  let closed = false;

  const app = new Koa();
  app.silent = true;
  app.use(async (ctx) => {
    const request = await record(ctx, state);
    // The answer is the one set when the request arrived: a test woken by nextDelivery may set the next answer
    // at once, and that must not change the answer to the request it was woken by.
    const behaviour: ReceiverBehaviour = state.behaviours.get(ctx.path) ?? ANSWER.ok;
    for (const wake of [...state.waiters]) wake();
    await behave(ctx, request, behaviour, state);
  });
  const server = await listen(app, host);
  const { port } = server.address() as AddressInfo;
  const base = `http://${host}:${port}`;

  return {
    port,
    url: (path = '/') => `${base}${path.startsWith('/') ? path : `/${path}`}`,
    answer: (path, behaviour) => {
      state.behaviours.set(path, behaviour);
    },
    deliveries: (path) => state.received.filter((r) => path === undefined || r.path === path),
    clear: () => {
      state.received.length = 0;
      state.consumed.clear();
    },
    nextDelivery: (options) => nextDelivery(state, options),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const release of state.hanging) release();
      state.hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
