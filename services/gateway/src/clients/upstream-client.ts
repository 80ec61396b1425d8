import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import { DependencyUnavailableError } from '@checkout/errors';
import { INTERNAL_HEADERS, type RequestScope } from '@checkout/http';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

// Hop-by-hop headers never cross a proxy (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length']);

/**
 * One keep-alive pool per internal service. The gateway is the only caller that may attach an organization
 * and mode, and it does so from the verified API key, never from the request.
 */
export class UpstreamClient {
  private readonly pool: Pool;

  constructor(
    readonly name: string,
    baseUrl: string,
    private readonly internalToken: string,
    private readonly timeoutMs: number,
  ) {
    this.pool = new Pool(baseUrl, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000, connectTimeout: 3_000 });
  }

  /** A JSON call; the upstream's answer (error envelopes included) comes back as it is. */
  async json(request: {
    method: string;
    path: string;
    scope?: RequestScope;
    requestId: string;
    body?: unknown;
    headers?: Record<string, string>;
  }): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { ...this.internalHeaders(request.scope, request.requestId), ...request.headers };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await this.pool.request({
        method: request.method as 'GET',
        path: request.path,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await response.body.text();
      // Merchants were authenticated here; an internal 401 means the services disagree on the internal
      // token (a rotation in progress), which is our outage, not the merchant's bad key.
      if (response.statusCode === 401) throw new Error(`${this.name} refused the internal token`);
      return { status: response.statusCode, headers: response.headers, body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined };
    } catch (err) {
      throw new DependencyUnavailableError(this.name, err);
    }
  }

  /** Streams a request through unchanged (the hosted page's forms, processor notifications with their HMAC). */
  async raw(request: { method: string; path: string; requestId: string; headers: Record<string, string | string[] | undefined>; body?: Readable }): Promise<{ status: number; headers: Record<string, string | string[]>; body: Readable }> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'host' && !name.startsWith('x-internal') && name !== INTERNAL_HEADERS.organization && name !== INTERNAL_HEADERS.mode) headers[name] = value;
    }
    Object.assign(headers, this.internalHeaders(undefined, request.requestId));
    try {
      const response = await this.pool.request({
        method: request.method as 'GET',
        path: request.path,
        headers,
        body: request.body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      return { status: response.statusCode, headers: out, body: response.body };
    } catch (err) {
      throw new DependencyUnavailableError(this.name, err);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private internalHeaders(scope: RequestScope | undefined, requestId: string): Record<string, string> {
    const headers: Record<string, string> = { [INTERNAL_HEADERS.token]: this.internalToken, 'x-request-id': requestId };
    if (scope) {
      headers[INTERNAL_HEADERS.organization] = scope.organizationId;
      headers[INTERNAL_HEADERS.mode] = scope.mode;
    }
    return headers;
  }
}
