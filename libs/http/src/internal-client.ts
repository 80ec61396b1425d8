import type { Readable } from 'node:stream';
import { Pool, errors as undiciErrors } from 'undici';
import { buildInfo } from '@checkout/config';
import { DependencyUnavailableError } from '@checkout/errors';
import { currentRequestId } from '@checkout/logger';
import { inSpan, injectTraceHeaders } from '@checkout/telemetry';
import { INTERNAL_API_HEADERS, type Scope } from '@checkout/contracts';

export interface InternalClientOptions {
  /** The service called, as named in errors and logs ("orders"). */
  service: string;
  /** Its internal base URL; a path prefix is kept. */
  baseUrl: string;
  internalToken: string;
  /** Connect, headers and body deadline of one call: no internal call hangs a request longer (D7). */
  timeoutMs: number;
  connections?: number;
  /** Extra attempts of an idempotent call after a transport failure or a 503. */
  retries?: number;
}

export interface InternalAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

// Hop-by-hop headers never cross a proxy (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
]);

/**
 * The one client of every internal API (docs/engineering.md: undici keep-alive pools, timeouts, retries only where
 * idempotent). It sends the internal token, the caller's organization and mode when given, and the request id.
 * A transport failure, and an internal 401 or 403 (the services disagree on a credential, or on who may call
 * what, during a rotation or a misconfigured deploy:
 * our outage, never the merchant's fault), become DependencyUnavailableError, which every service answers as
 * 503. Any other answer, error envelopes included, comes back as it is for the caller to interpret.
 */
export class InternalClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly retries: number;
  /**
   * What every call says of its caller: the credential and this build's version (read once here: under tsx the
   * first read asks git, which must not happen on a request's path).
   */
  private readonly callerHeaders: Readonly<Record<string, string>>;

  constructor(private readonly options: InternalClientOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? 64,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connectTimeout: Math.min(3_000, options.timeoutMs),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.retries = options.retries ?? 2;
    this.callerHeaders = {
      [INTERNAL_API_HEADERS.token]: options.internalToken,
      [INTERNAL_API_HEADERS.version]: buildInfo().version,
    };
  }

  get service(): string {
    return this.options.service;
  }

  /**
   * A JSON call. `idempotent` (default: GET) lets a transport failure or a 503 be retried with backoff; the
   * last answer of a call that kept getting 503 is returned as it is. A read that timed out is not asked again: the
   * callee may still be doing it (a search the engine cannot stop), and asking again would double the work on a
   * service already too slow and stretch the caller's wait to a multiple of its timeout. A keyed write that timed
   * out is asked again: the retry meets what the first try committed, and answers at once (an order create whose
   * first try waited on a stopped broker).
   */
  async json(request: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    path: string;
    scope?: Scope;
    requestId?: string;
    body?: unknown;
    headers?: Record<string, string>;
    idempotent?: boolean;
  }): Promise<InternalAnswer> {
    return inSpan(
      `${request.method} ${this.options.service}`,
      { kind: 'client', attributes: () => this.spanAttributes(request.method, request.scope) },
      async (span) => {
        const headers: Record<string, string> = {
          accept: 'application/json',
          ...this.internalHeaders(request.scope, request.requestId),
          ...request.headers,
        };
        injectTraceHeaders(headers);
        const body = request.body === undefined ? undefined : JSON.stringify(request.body);
        if (body !== undefined) headers['content-type'] = 'application/json';
        const attempts = (request.idempotent ?? request.method === 'GET') ? this.retries + 1 : 1;
        for (let attempt = 1; ; attempt += 1) {
          let answer: InternalAnswer;
          try {
            const response = await this.pool.request({
              method: request.method,
              path: this.basePath + request.path,
              headers,
              body,
            });
            const text = await response.body.text();
            answer = { status: response.statusCode, headers: response.headers, body: parseJson(text) };
          } catch (err) {
            if (attempt < attempts && isTransportError(err) && !(isTimeout(err) && request.method === 'GET')) {
              await backoff(attempt);
              continue;
            }
            throw new DependencyUnavailableError(this.options.service, err);
          }
          if (answer.status === 401 || answer.status === 403)
            throw new DependencyUnavailableError(
              this.options.service,
              new Error(`${this.options.service} refused this caller (${answer.status})`),
            );
          if (answer.status === 503 && attempt < attempts && !answer.headers[INTERNAL_API_HEADERS.deadlineExceeded]) {
            await backoff(attempt);
            continue;
          }
          span.setAttributes({ 'http.response.status_code': answer.status });
          if (answer.status >= 500) span.fail();
          return answer;
        }
      },
    );
  }

  /** Streams a request through unchanged (the hosted page's forms, processor notifications with their HMAC). */
  async raw(request: {
    method: string;
    path: string;
    requestId: string;
    /** The tenant a streamed answer is read for (a report's file, D52); absent for a pass-through, which names none. */
    scope?: Scope;
    headers: Record<string, string | string[] | undefined>;
    body?: Readable;
  }): Promise<{
    status: number;
    headers: Record<string, string | string[]>;
    body: Readable;
  }> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (
        value !== undefined &&
        !HOP_BY_HOP.has(name) &&
        name !== 'host' &&
        !name.startsWith('x-internal') &&
        name !== INTERNAL_API_HEADERS.organization &&
        name !== INTERNAL_API_HEADERS.mode
      )
        headers[name] = value;
    }
    Object.assign(headers, this.internalHeaders(request.scope, request.requestId));
    return inSpan(
      `${request.method} ${this.options.service}`,
      { kind: 'client', attributes: () => this.spanAttributes(request.method, undefined) },
      async (span) => {
        // The caller's own trace headers (a browser's, a processor's) never pass: the call continues this span.
        delete headers.traceparent;
        delete headers.tracestate;
        injectTraceHeaders(headers as Record<string, string>);
        try {
          const response = await this.pool.request({
            method: request.method,
            path: this.basePath + request.path,
            headers,
            body: request.body,
          });
          const out: Record<string, string | string[]> = {};
          // What the callee says to its internal caller (its x-internal-version) is not for whoever this is passed to.
          for (const [name, value] of Object.entries(response.headers))
            if (value !== undefined && !HOP_BY_HOP.has(name) && !name.startsWith('x-internal')) out[name] = value;
          span.setAttributes({ 'http.response.status_code': response.statusCode });
          if (response.statusCode >= 500) span.fail();
          return { status: response.statusCode, headers: out, body: response.body };
        } catch (err) {
          throw new DependencyUnavailableError(this.options.service, err);
        }
      },
    );
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private spanAttributes(method: string, scope: Scope | undefined) {
    return {
      'http.request.method': method,
      'peer.service': this.options.service,
      'checkout.organization_id': scope?.organizationId,
      'checkout.mode': scope?.mode,
    };
  }

  private internalHeaders(scope: Scope | undefined, requestId: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { ...this.callerHeaders };
    const id = requestId ?? currentRequestId();
    if (id) headers[INTERNAL_API_HEADERS.requestId] = id;
    if (scope) {
      headers[INTERNAL_API_HEADERS.organization] = scope.organizationId;
      headers[INTERNAL_API_HEADERS.mode] = scope.mode;
    }
    return headers;
  }
}

function isTransportError(err: unknown): boolean {
  return (
    err instanceof undiciErrors.UndiciError ||
    (typeof err === 'object' &&
      err !== null &&
      typeof (err as { code?: unknown }).code === 'string' &&
      /^E[A-Z]+$/.test((err as { code: string }).code))
  );
}

function isTimeout(err: unknown): boolean {
  return err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError;
}

function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50 * 3 ** (attempt - 1) * (0.5 + Math.random())));
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
