import {
  callInternal,
  type InternalAnswer,
  type InternalCall,
  type InternalClient,
  type InternalResult,
} from '@checkout/http';
import { INTERNAL_API_HEADERS, type InternalAnswerOf, type InternalRoute } from '@checkout/contracts';
import type { ForwardedCall, Forwarding, PassThrough } from '../domain/owners';

/** A list page with "next" and "previous" but no total: the owner skips the count. */
export const WITHOUT_TOTAL = { [INTERNAL_API_HEADERS.withoutTotal]: '1' };

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

  /** Forwarding's streamed answer (a report's CSV, D52): the tenant's scope, the owner's body as it comes. */
  stream(call: Omit<ForwardedCall, 'body'>) {
    return this.http.raw({ ...call, headers: call.headers ?? {} });
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
   * for the API. A route of libs/contracts' INTERNAL_ROUTES, read by libs/http's callInternal: an owner's 4xx is the
   * DomainError it named; an answer that does not parse is the owner misbehaving, a 503 rather than a page built on
   * a guess.
   */
  protected call<R extends InternalRoute>(route: R, call: InternalCall<R>): Promise<InternalResult<R>> {
    return callInternal(this.http, route, call);
  }

  /** The parsed answer of a call. */
  protected async read<R extends InternalRoute>(route: R, call: InternalCall<R>): Promise<InternalAnswerOf<R>> {
    return (await this.call(route, call)).value;
  }
}
