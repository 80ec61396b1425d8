import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { AddressPolicy } from '../domain/address-policy';

// The webhook sender (style.md §11). One shared keep-alive Agent for all merchants. Its `connect.lookup`
// resolves the host itself and refuses the connection when any address it would use is internal (D33): the
// check sits on the address actually dialled, so a DNS answer that changes between check and connect
// (rebinding) cannot get around it. IP-literal hosts skip lookup, so those are checked before dispatch.


/** signing_failed: nothing was sent, the organization's signing secret could not be used (malformed, D35). */
export type SendOutcomeKind = 'success' | 'http_error' | 'redirect' | 'timeout' | 'refused' | 'network' | 'invalid_url' | 'signing_failed';

export interface SendResult {
  kind: SendOutcomeKind;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseSnippet: string | null;
  /** The Retry-After header of a 429 or 503 answer, as sent (the retry policy interprets it). */
  retryAfter?: string;
}

export interface SenderOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  snippetBytes: number;
  maxConnectionsPerHost: number;
  /** Replaceable for tests; node:dns lookup otherwise. */
  resolve?: typeof dnsLookup;
}

class RefusedTargetError extends Error {
  readonly code = 'EWEBHOOKREFUSED';
  constructor(reason: string) {
    super(`refused: ${reason}`);
    this.name = 'RefusedTargetError';
  }
}

export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    const resolve = options.resolve ?? dnsLookup;
    const policy = options.policy;
    const guardedLookup = ((hostname: string, lookupOptions: { family?: number; hints?: number; all?: boolean }, callback: (...args: unknown[]) => void) => {
      resolve(hostname, { all: true, family: lookupOptions.family ?? 0, hints: lookupOptions.hints ?? 0 }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err);
        if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
        for (const candidate of addresses) {
          const verdict = policy.check(candidate.address);
          if (!verdict.allowed) return callback(new RefusedTargetError(verdict.reason));
        }
        if (lookupOptions.all) return callback(null, addresses);
        const first = addresses[0] as LookupAddress;
        return callback(null, first.address, first.family);
      });
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
      return { kind: 'invalid_url', ok: false, statusCode: null, durationMs: elapsed(), error: `invalid callback URL: ${input.url.slice(0, 200)}`, responseSnippet: null };
    }
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal)) {
      const verdict = this.options.policy.check(literal);
      if (!verdict.allowed) return { kind: 'refused', ok: false, statusCode: null, durationMs: elapsed(), error: `refused: ${verdict.reason}`, responseSnippet: null };
    }

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
      const statusCode = response.statusCode;
      const durationMs = elapsed();
      if (statusCode >= 200 && statusCode < 300) return { kind: 'success', ok: true, statusCode, durationMs, error: null, responseSnippet: snippet };
      if (statusCode >= 300 && statusCode < 400) {
        const location = response.headers.location;
        const where = typeof location === 'string' ? ` to ${location.slice(0, 200)}` : '';
        return { kind: 'redirect', ok: false, statusCode, durationMs, error: `redirect${where} not followed (HTTP ${statusCode})`, responseSnippet: snippet };
      }
      const retryAfter = statusCode === 429 || statusCode === 503 ? response.headers['retry-after'] : undefined;
      if (typeof retryAfter === 'string') {
        return { kind: 'http_error', ok: false, statusCode, durationMs, error: `HTTP ${statusCode} (Retry-After: ${retryAfter.slice(0, 40)})`, responseSnippet: snippet, retryAfter };
      }
      return { kind: 'http_error', ok: false, statusCode, durationMs, error: `HTTP ${statusCode}`, responseSnippet: snippet };
    } catch (err) {
      const durationMs = elapsed();
      const refused = findRefusal(err);
      if (refused) return { kind: 'refused', ok: false, statusCode: null, durationMs, error: refused, responseSnippet: null };
      if (timedOut) return { kind: 'timeout', ok: false, statusCode: null, durationMs, error: `timeout: no complete response within ${this.options.timeoutMs} ms`, responseSnippet: null };
      return { kind: 'network', ok: false, statusCode: null, durationMs, error: `network error: ${describeError(err)}`, responseSnippet: null };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => this.agent.destroy());
  }
}

async function readSnippet(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, limit: number): Promise<string | null> {
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

function findRefusal(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    if (current instanceof RefusedTargetError) return current.message;
    if (current instanceof Error && current.message.startsWith('refused: ')) return current.message;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${err.message}${cause}`.slice(0, 300);
}
