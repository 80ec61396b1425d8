import type { LookupAddress, lookup as dnsLookup } from 'node:dns';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../domain/rules/address-policy';
import type { SendResult } from '../domain/rules/attempt-outcome';
import { WebhookSender, type SenderDebugLog } from './webhook-endpoints.client';

// The attempt's `error` is shown to the merchant by the events API, and used to carry the address a
// name resolved to ("refused: 10.0.0.5 is a private address"), raw network error texts (which name hosts) and the
// Location of a redirect. Attempts now say only what a merchant can act on; the detail goes to the debug log.

const IP_LITERAL = /\b\d{1,3}(?:\.\d{1,3}){3}\b|\[?[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}\]?/i;
const REFUSED =
  'the destination is not reachable: its name does not resolve, or its address is private, loopback or reserved';
const BODY = { headers: { 'content-type': 'application/json' }, body: '{}' };

/** A resolver answering from a table, as the cluster's DNS would answer for names the merchant chose. */
function resolverOf(answers: Record<string, string | NodeJS.ErrnoException>): typeof dnsLookup {
  const resolve = (
    hostname: string,
    _options: unknown,
    callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ): void => {
    const answer =
      answers[hostname] ??
      Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    queueMicrotask(() =>
      typeof answer === 'string'
        ? callback(null, [{ address: answer, family: answer.includes(':') ? 6 : 4 }])
        : callback(answer, []),
    );
  };
  return resolve as unknown as typeof dnsLookup;
}

function senderWith(options: {
  allowed?: string[];
  denied?: string[];
  answers?: Record<string, string | NodeJS.ErrnoException>;
  timeoutMs?: number;
  debug?: SenderDebugLog;
}): WebhookSender {
  return new WebhookSender({
    policy: new AddressPolicy(options.allowed ?? [], options.denied ?? []),
    timeoutMs: options.timeoutMs ?? 5_000,
    snippetBytes: 256,
    maxConnectionsPerHost: 2,
    resolve: resolverOf(options.answers ?? {}),
    ...(options.debug && { debug: options.debug }),
  });
}

function expectNothingInternal(result: SendResult, ...internals: string[]): void {
  expect(result.error).not.toBeNull();
  expect(result.error, 'no IP address literal').not.toMatch(IP_LITERAL);
  for (const internal of internals) expect(result.error).not.toContain(internal);
}

let http: Server;
let httpPort: number;
let resetter: NetServer;
let resetterPort: number;
let silent: NetServer;
let silentPort: number;
const openSockets = new Set<Socket>();

beforeAll(async () => {
  http = createHttpServer((req, res) => {
    if (req.url === '/redirect') res.writeHead(301, { location: 'http://10.20.30.40:8080/internal/admin' }).end();
    else res.writeHead(200).end('ok');
  });
  // Answers nothing and closes the connection abruptly: what a crashing receiver or a middlebox does.
  resetter = createNetServer((socket) => socket.on('data', () => socket.resetAndDestroy()));
  // Accepts and never answers: a tarpit.
  silent = createNetServer((socket) => {
    openSockets.add(socket);
    socket.on('close', () => openSockets.delete(socket));
  });
  const listen = (server: Server | NetServer) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
  [httpPort, resetterPort, silentPort] = await Promise.all([listen(http), listen(resetter), listen(silent)]);
});

afterAll(async () => {
  for (const socket of openSockets) socket.destroy();
  await Promise.all([http, resetter, silent].map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('What an attempt says about a failure', () => {
  it.each([
    ['a private IP literal', 'http://10.0.0.5/hook'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['an IPv6 loopback literal', 'http://[::1]:8080/hook'],
    ['an IPv4-compatible IPv6 literal', 'http://[::a9fe:a9fe]/hook'],
  ])(
    'When the callback URL is %s, then the attempt is refused with a coarse reason and no address',
    async (_label, url) => {
      const sender = senderWith({});
      const result = await sender.send({ url, ...BODY });
      await sender.close();
      expect(result.kind).toBe('refused');
      expect(result.error).toBe(REFUSED);
      expectNothingInternal(result);
    },
  );

  it('When a name resolves into a network the operators deny (WEBHOOK_DENIED_NETWORKS), then the attempt is refused as an internal address is, though the range alone would allow it', async () => {
    const url = `http://hooks.merchant.example:${httpPort}/hook`;
    const answers = { 'hooks.merchant.example': '127.0.0.1' };
    // The receiver is reachable with the network allowed, so the refusal below is the deny-list's doing.
    const allowed = senderWith({ allowed: ['127.0.0.0/8'], answers });
    expect((await allowed.send({ url, ...BODY })).kind).toBe('success');
    await allowed.close();
    const denied = senderWith({ allowed: ['127.0.0.0/8'], denied: ['127.0.0.1/32'], answers });
    const result = await denied.send({ url, ...BODY });
    await denied.close();
    expect(result.kind).toBe('refused');
    expect(result.error).toBe(REFUSED);
    expectNothingInternal(result, '127.0.0.1');
  });

  it('When a name resolves to a private address, then the attempt shows neither the address nor the name it resolved, and the debug log has both', async () => {
    const logged: Array<Record<string, unknown>> = [];
    const sender = senderWith({
      answers: { 'hooks.merchant.example': '10.9.8.7' },
      debug: (detail) => logged.push(detail),
    });
    const result = await sender.send({ url: 'https://hooks.merchant.example/hook', ...BODY });
    await sender.close();
    expect(result.kind).toBe('refused');
    expect(result.error).toBe(REFUSED);
    expectNothingInternal(result, '10.9.8.7');
    expect(JSON.stringify(logged)).toContain('10.9.8.7');
  });

  it("When the name does not resolve, then the attempt says what it says for a name that resolves to a private address (no telling which names the cluster's DNS knows), without the resolver's text", async () => {
    const sender = senderWith({
      answers: {
        'svc.internal': Object.assign(new Error('getaddrinfo EAI_AGAIN svc.internal via 10.96.0.10'), {
          code: 'EAI_AGAIN',
        }),
        'svc.cluster.local': '10.96.4.2',
      },
    });
    const missing = await sender.send({ url: 'http://nowhere.merchant.example/hook', ...BODY });
    const failing = await sender.send({ url: 'http://svc.internal/hook', ...BODY });
    const internal = await sender.send({ url: 'http://svc.cluster.local/hook', ...BODY });
    await sender.close();
    expect(internal.error).toBe(REFUSED);
    for (const result of [missing, failing]) {
      expect(result.kind).toBe('network');
      expect(result.error).toBe(internal.error);
      expectNothingInternal(result, 'getaddrinfo', 'svc.internal');
    }
  });

  it('When nothing listens, the connection is reset, or nothing answers, then the attempt says so without the address', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const answers = { 'hooks.merchant.example': '127.0.0.1' };
    const sender = senderWith({ allowed: ['127.0.0.0/8'], answers, timeoutMs: 300 });
    const refused = await sender.send({ url: `http://hooks.merchant.example:${closedPort}/hook`, ...BODY });
    const reset = await sender.send({ url: `http://hooks.merchant.example:${resetterPort}/hook`, ...BODY });
    const hung = await sender.send({ url: `http://hooks.merchant.example:${silentPort}/hook`, ...BODY });
    await sender.close();
    expect(refused).toMatchObject({ kind: 'network', error: 'connection refused' });
    expect(reset).toMatchObject({ kind: 'network', error: 'connection reset' });
    expect(hung).toMatchObject({ kind: 'timeout', error: 'timed out after 300 ms' });
    for (const result of [refused, reset, hung])
      expectNothingInternal(result, String(closedPort), String(resetterPort), String(silentPort));
  });

  it('When the timeout is whole seconds, then the attempt says it in seconds', async () => {
    const sender = senderWith({ allowed: ['127.0.0.0/8'], timeoutMs: 1_000 });
    const hung = await sender.send({ url: `http://127.0.0.1:${silentPort}/hook`, ...BODY });
    await sender.close();
    expect(hung).toMatchObject({ kind: 'timeout', error: 'timed out after 1 s' });
  });

  it('When TLS cannot be established, then the attempt says TLS error', async () => {
    const sender = senderWith({ allowed: ['127.0.0.0/8'], answers: { 'hooks.merchant.example': '127.0.0.1' } });
    // An https URL to a plain HTTP server: the handshake fails.
    const result = await sender.send({ url: `https://hooks.merchant.example:${httpPort}/hook`, ...BODY });
    await sender.close();
    expect(result).toMatchObject({ kind: 'network', error: 'TLS error' });
    expectNothingInternal(result);
  });

  it('When the endpoint redirects, then the attempt names the status, never the Location', async () => {
    const sender = senderWith({ allowed: ['127.0.0.0/8'] });
    const result = await sender.send({ url: `http://127.0.0.1:${httpPort}/redirect`, ...BODY });
    const ok = await sender.send({ url: `http://127.0.0.1:${httpPort}/fine`, ...BODY });
    await sender.close();
    expect(result).toMatchObject({ kind: 'redirect', statusCode: 301, error: 'redirect not followed (HTTP 301)' });
    expectNothingInternal(result, 'internal/admin');
    expect(ok).toMatchObject({ kind: 'success', error: null });
  });

  it('When the callback URL is not an http(s) URL, then the attempt says so without repeating it', async () => {
    const sender = senderWith({});
    const result = await sender.send({ url: 'gopher://10.0.0.5:70/x', ...BODY });
    await sender.close();
    expect(result).toMatchObject({ kind: 'invalid_url', error: 'the callback URL is not a valid http(s) URL' });
  });
});

describe('The address an attempt counts against and connects to', () => {
  it('When two names resolve to one address, then both attempts count against the same address and port; an IP literal is itself, a name that leads nowhere allowed holds none', async () => {
    const sender = senderWith({
      allowed: ['127.0.0.0/8'],
      answers: {
        'a.merchant.example': '127.0.0.1',
        'b.merchant.example': '127.0.0.1',
        'c.merchant.example': '10.1.2.3',
      },
    });
    expect(await sender.addressOf(`https://a.merchant.example:${httpPort}/one`)).toBe(`127.0.0.1:${httpPort}`);
    expect(await sender.addressOf(`https://b.merchant.example:${httpPort}/two`)).toBe(`127.0.0.1:${httpPort}`);
    expect(await sender.addressOf('https://b.merchant.example/two')).toBe('127.0.0.1:443');
    expect(await sender.addressOf('http://[::1]:8080/hook')).toBe('[::1]:8080');
    expect(await sender.addressOf('https://c.merchant.example/')).toBeNull();
    expect(await sender.addressOf('https://unknown.merchant.example/')).toBeNull();
    await sender.close();
  });

  it('When a name answers another address after it was counted, then the attempt still connects to the address it was counted against and checked (pinned), not the new answer', async () => {
    const answers: Record<string, string> = { 'rebind.merchant.example': '127.0.0.1' };
    const sender = senderWith({ allowed: ['127.0.0.0/8'], answers });
    const url = `http://rebind.merchant.example:${httpPort}/hook`;
    expect(await sender.addressOf(url)).toBe(`127.0.0.1:${httpPort}`);
    // The name now answers an address nothing listens on: an unpinned connection would resolve again and fail.
    answers['rebind.merchant.example'] = '127.0.0.2';
    expect((await sender.send({ url, ...BODY })).kind).toBe('success');
    await sender.close();
  });
});
