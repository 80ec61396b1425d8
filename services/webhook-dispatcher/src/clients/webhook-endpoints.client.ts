import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { TtlCache } from '@checkout/coalesce';
import type { AddressPolicy } from '../domain/rules/address-policy';
import type { SendOutcomeKind, SendResult } from '../domain/rules/attempt-outcome';
import type { WebhookSenderPort } from '../domain/engine/ports';

// The webhook sender. One shared keep-alive Agent for all merchants. Its `connect.lookup`
// resolves the host itself and refuses the connection when any address it would use is internal (D33): the
// check sits on the address actually dialled, so a DNS answer that changes between check and connect
// (rebinding) cannot get around it. IP-literal hosts skip lookup, so those are checked before dispatch. A name's
// checked answer is pinned for a few seconds (`addressOf`): the scheduler counts the attempt against the address
// the connection is then given, and only that one.
//
// An attempt's `error` is shown to the merchant (events API), so it says only what the merchant can act on, in a
// few fixed phrases (it used to carry the address a name resolved to, raw network error texts naming
// hosts, and a redirect's Location, which told anyone with a test key what the cluster's DNS answers). What
// happened exactly goes to the debug log (`debug`), never to the attempt.

/**
 * What the merchant sees when its URL leads to no address that may be reached (D33): whether the name does not
 * resolve, or resolves to a private, loopback or reserved address, gets this one phrase. Two phrases told a test
 * key which names exist in the cluster's DNS (a name that resolves is a service there), one URL at a time.
 */
const REFUSED_TARGET =
  'the destination is not reachable: its name does not resolve, or its address is private, loopback or reserved';

export interface SenderOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  snippetBytes: number;
  maxConnectionsPerHost: number;
  /** Replaceable for tests; node:dns lookup otherwise. */
  resolve?: typeof dnsLookup;
  /** Where the detail of a failed attempt goes (the resolved address, the error's own text): the debug log. */
  debug?: SenderDebugLog;
}

/** The detail of a failed attempt, for operators only: it may name internal addresses and hosts. */
export type SenderDebugLog = (detail: { kind: SendOutcomeKind; host: string; detail: string }) => void;

class RefusedTargetError extends Error {
  readonly code = 'EWEBHOOKREFUSED';
  constructor(reason: string) {
    super(`refused: ${reason}`);
    this.name = 'RefusedTargetError';
  }
}

/** A failed name lookup, told apart from connection errors whatever code the resolver used. */
class LookupFailedError extends Error {
  readonly code: string;
  constructor(cause: NodeJS.ErrnoException) {
    super(`DNS lookup failed: ${cause.message}`, { cause });
    this.name = 'LookupFailedError';
    this.code = cause.code ?? 'EDNS';
  }
}

/**
 * How long a name's address, once resolved and checked, is what attempts to it connect to and count against. Brief:
 * a merchant's DNS change reaches the attempts within it; long enough that the scheduler's address and the
 * connection's agree (both read this one answer).
 */
const ADDRESS_CACHE_MS = 5_000;

export class WebhookSender implements WebhookSenderPort {
  private readonly agent: Agent;
  /** Each name's pinned address: resolved once, checked against D33, then both counted and connected to. */
  private readonly addresses = new TtlCache<LookupAddress>({
    ttlMs: ADDRESS_CACHE_MS,
    maxEntries: 10_000,
    // A name that does not resolve, or resolves to a refused address, stays refused for the pause: the attempt's
    // own connection meets the same answer its address slot was decided on.
    staleRetryMs: ADDRESS_CACHE_MS,
  });

  constructor(private readonly options: SenderOptions) {
    const guardedLookup = ((
      hostname: string,
      lookupOptions: { all?: boolean },
      callback: (...args: unknown[]) => void,
    ) => {
      this.pinned(hostname).then(
        (address) => (lookupOptions.all ? callback(null, [address]) : callback(null, address.address, address.family)),
        (err: unknown) => callback(err),
      );
    }) as unknown as LookupFunction;

    this.agent = new Agent({
      connections: options.maxConnectionsPerHost,
      // Short: after a burst to many merchants, idle sockets to each would otherwise hold memory for long.
      keepAliveTimeout: 4_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: options.timeoutMs, lookup: guardedLookup },
    });
  }

  /**
   * The one address a name's attempts use: refused when any address it resolves to is internal (D33), else its first,
   * the only one the connection is given (so the address counted is the address dialled).
   */
  private pinned(hostname: string): Promise<LookupAddress> {
    const resolve = this.options.resolve ?? dnsLookup;
    return this.addresses.get(
      hostname,
      () =>
        new Promise<LookupAddress>((done, fail) => {
          resolve(hostname, { all: true, family: 0 }, (err, addresses: LookupAddress[]) => {
            if (err) return fail(new LookupFailedError(err));
            const first = addresses[0];
            if (!first)
              return fail(
                new LookupFailedError(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' })),
              );
            for (const candidate of addresses) {
              const verdict = this.options.policy.check(candidate.address);
              if (!verdict.allowed) return fail(new RefusedTargetError(verdict.reason));
            }
            return done(first);
          });
        }),
    );
  }

  /**
   * The `address:port` an attempt to `url` connects to (the scheduler's per-address key): an IP literal as written,
   * a name as pinned. null when the URL is invalid or its name leads nowhere it may go (its send fails the same way).
   */
  async addressOf(url: string): Promise<string | null> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
    const literal = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal)) return `${parsed.hostname}:${port}`;
    try {
      const { address, family } = await this.pinned(parsed.hostname);
      return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
    } catch {
      return null;
    }
  }

  /** Host key for per-host scheduling: `host:port` of the URL, or "invalid". */
  static hostKey(url: string): string {
    try {
      const parsed = new URL(url);
      return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
    } catch {
      return 'invalid';
    }
  }

  /** One attempt: POST, whole attempt bounded by timeoutMs, success only on 2xx, redirects not followed. */
  async send(input: { url: string; headers: Record<string, string>; body: string }): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(input.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      return notAnswered('invalid_url', elapsed(), 'the callback URL is not a valid http(s) URL');
    }
    const failed: FailureLog = (kind, detail) =>
      this.options.debug?.({ kind, host: url.host, detail: detail.slice(0, 500) });
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal)) {
      const verdict = this.options.policy.check(literal);
      if (!verdict.allowed) {
        failed('refused', verdict.reason);
        return notAnswered('refused', elapsed(), REFUSED_TARGET);
      }
    }
    return this.post(url, input, elapsed, failed);
  }

  /** The POST itself, to an address the policy allows (the agent's lookup checks a name's addresses). */
  private async post(
    url: URL,
    input: { headers: Record<string, string>; body: string },
    elapsed: () => number,
    failed: FailureLog,
  ): Promise<SendResult> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('webhook attempt timed out'));
    }, this.options.timeoutMs);
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: input.headers,
        body: input.body,
        signal: controller.signal,
        // undici 7 never follows redirects on a plain dispatcher (the old maxRedirections option is gone; following
        // needs the redirect interceptor, which we do not install): a 3xx is a failed attempt (D31).
      });
      const snippet = await readSnippet(response.body, this.options.snippetBytes);
      return answerOf(response.statusCode, response.headers, snippet, elapsed(), failed);
    } catch (err) {
      const durationMs = elapsed();
      const refused = findRefusal(err);
      if (refused) {
        failed('refused', refused);
        return notAnswered('refused', durationMs, REFUSED_TARGET);
      }
      const { kind, error } = timedOut
        ? { kind: 'timeout' as const, error: timedOutAfter(this.options.timeoutMs) }
        : coarseFailure(err, this.options.timeoutMs);
      failed(kind, describeError(err));
      return notAnswered(kind, durationMs, error);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => this.agent.destroy());
  }
}

/** The detail of one failed attempt, to the debug log. */
type FailureLog = (kind: SendOutcomeKind, detail: string) => void;

/** An attempt that got no HTTP answer (refused, unreachable, timed out, or never sent). */
function notAnswered(kind: SendOutcomeKind, durationMs: number, error: string): SendResult {
  return { kind, ok: false, statusCode: null, durationMs, error, responseSnippet: null };
}

/** What an HTTP answer makes of the attempt: a 2xx succeeds; a 3xx is not followed; a 429 or 503 may ask for time. */
function answerOf(
  statusCode: number,
  headers: Record<string, string | string[] | undefined>,
  snippet: string | null,
  durationMs: number,
  failed: FailureLog,
): SendResult {
  if (statusCode >= 200 && statusCode < 300)
    return { kind: 'success', ok: true, statusCode, durationMs, error: null, responseSnippet: snippet };
  if (statusCode >= 300 && statusCode < 400) {
    // The Location may name an internal host (a receiver behind a proxy): the debug log has it, not the attempt.
    const location = headers.location;
    failed('redirect', `HTTP ${statusCode} to ${typeof location === 'string' ? location : '(no Location)'}`);
    const error = `redirect not followed (HTTP ${statusCode})`;
    return { kind: 'redirect', ok: false, statusCode, durationMs, error, responseSnippet: snippet };
  }
  const retryAfter = statusCode === 429 || statusCode === 503 ? headers['retry-after'] : undefined;
  if (typeof retryAfter === 'string') {
    const error = `HTTP ${statusCode} (Retry-After: ${retryAfter.slice(0, 40)})`;
    return { kind: 'http_error', ok: false, statusCode, durationMs, error, responseSnippet: snippet, retryAfter };
  }
  return {
    kind: 'http_error',
    ok: false,
    statusCode,
    durationMs,
    error: `HTTP ${statusCode}`,
    responseSnippet: snippet,
  };
}

async function readSnippet(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  limit: number,
): Promise<string | null> {
  if (limit <= 0) {
    body.destroy();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const remaining = limit - size;
    chunks.push(chunk.length > remaining ? chunk.subarray(0, remaining) : chunk);
    size += Math.min(chunk.length, remaining);
    // Leaving the loop destroys the stream: we never read more than the limit of a large or endless body.
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The error and its causes, outermost first (undici wraps socket and lookup errors). */
function chainOf(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = err, depth = 0; depth < 5 && current; depth += 1) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function findRefusal(err: unknown): string | null {
  for (const current of chainOf(err)) {
    if (current instanceof RefusedTargetError) return current.message;
    if (current instanceof Error && current.message.startsWith('refused: ')) return current.message;
  }
  return null;
}

function timedOutAfter(timeoutMs: number): string {
  return timeoutMs % 1000 === 0 ? `timed out after ${timeoutMs / 1000} s` : `timed out after ${timeoutMs} ms`;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
/** Node's TLS and OpenSSL's certificate verification codes. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH$)/;

/**
 * One of a few fixed phrases for a failed connection or exchange: what the merchant can act on, and a bounded set
 * (the attempt is stored and shown; the error's own text may name internal hosts and addresses).
 */
function coarseFailure(err: unknown, timeoutMs: number): { kind: 'timeout' | 'network'; error: string } {
  const chain = chainOf(err);
  if (chain.some((e) => e instanceof LookupFailedError)) return { kind: 'network', error: REFUSED_TARGET };
  const codes = chain
    .map((e) => (e as { code?: unknown }).code)
    .filter((code): code is string => typeof code === 'string');
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return { kind: 'timeout', error: timedOutAfter(timeoutMs) };
  if (codes.some((code) => TLS_CODE.test(code))) return { kind: 'network', error: 'TLS error' };
  if (codes.includes('ECONNREFUSED')) return { kind: 'network', error: 'connection refused' };
  if (codes.some((code) => RESET_CODES.has(code))) return { kind: 'network', error: 'connection reset' };
  if (codes.some((code) => UNREACHABLE_CODES.has(code))) return { kind: 'network', error: 'host unreachable' };
  return { kind: 'network', error: 'connection failed' };
}

/** The error's own text, for the debug log only. */
function describeError(err: unknown): string {
  return chainOf(err)
    .map((e) => {
      if (!(e instanceof Error)) return String(e);
      const code = (e as { code?: unknown }).code;
      return `${typeof code === 'string' ? `${code} ` : ''}${e.message}`;
    })
    .join(' <- ')
    .slice(0, 500);
}
