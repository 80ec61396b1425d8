import type { z } from 'zod';
import { DependencyUnavailableError, DomainError, isErrorCode } from '@checkout/errors';
import type { InternalAnswer, InternalClient } from '@checkout/http';
import { INTERNAL_API_HEADERS, type Scope } from '@checkout/contracts';
import type { ForwardedCall, Forwarding, PassThrough } from '../domain/owners';

/** A list page with "next" and "previous" but no total: the owner skips the count. */
export const WITHOUT_TOTAL = { [INTERNAL_API_HEADERS.withoutTotal]: '1' };

/** A call whose answer the gateway itself reads (the dashboard, D47), parsed with the owner's contract schema. */
export interface ReadCall {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  scope: Scope;
  requestId: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * What the gateway's client of each service it calls (orders, sessions, the webhook dispatcher) shares, on
 * libs/http's InternalClient (token, scope and request id headers, timeouts, retries of idempotent calls).
 */
export abstract class InternalApi implements Forwarding, PassThrough {
  constructor(protected readonly http: InternalClient) {}

  get service(): string {
    return this.http.service;
  }

  /** Forwarding (domain/owners.ts): the public and admin APIs' calls, answered as they came. */
  forward(call: ForwardedCall): Promise<InternalAnswer> {
    return this.http.json(call);
  }

  /** PassThrough (domain/owners.ts): the hosted page and the processor's notifications, streamed unchanged. */
  passThrough(request: Parameters<PassThrough['passThrough']>[0]) {
    return this.http.raw(request);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /**
   * D47: everything the dashboard shows or does goes through the owners' internal APIs, with the dashboard
   * session's scope in the same headers an API-key request sends, so tenancy is enforced by the owners exactly as
   * for the API. An owner's 4xx becomes the DomainError it named (its status comes from the one table); an answer
   * that does not parse is the owner misbehaving, a 503 rather than a page built on a guess.
   */
  protected async read<S extends z.ZodType>(schema: S, call: ReadCall): Promise<z.output<S>> {
    const answer = await this.answeredOrRefused(call);
    const parsed = answer.status < 300 ? schema.safeParse(answer.body) : undefined;
    if (!parsed?.success)
      throw new DependencyUnavailableError(
        this.service,
        new Error(`unexpected answer ${answer.status} to ${call.method} ${call.path}`),
      );
    return parsed.data;
  }

  /**
   * A write the dashboard makes (D47) whose answer the caller needs whole, headers included (D46: the order a refund
   * wrote goes on to its session): the owner's 4xx as the DomainError it named, a success as it came.
   */
  protected async write(call: ReadCall): Promise<InternalAnswer> {
    const answer = await this.answeredOrRefused(call);
    if (answer.status >= 300)
      throw new DependencyUnavailableError(
        this.service,
        new Error(`unexpected answer ${answer.status} to ${call.method} ${call.path}`),
      );
    return answer;
  }

  private async answeredOrRefused(call: ReadCall): Promise<InternalAnswer> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {}))
      if (value !== undefined && value !== '') search.set(name, value);
    const qs = search.size > 0 ? `?${search.toString()}` : '';
    const answer = await this.http.json({
      method: call.method,
      path: `${call.path}${qs}`,
      scope: call.scope,
      requestId: call.requestId,
      body: call.body,
      ...(call.headers && { headers: call.headers }),
    });
    if (answer.status >= 400 && answer.status < 500) {
      const body = answer.body as { code?: unknown; message?: unknown } | null;
      const code = isErrorCode(body?.code) ? body.code : 'INVALID_REQUEST';
      throw new DomainError(code, typeof body?.message === 'string' ? body.message : 'The request was refused.');
    }
    return answer;
  }
}
