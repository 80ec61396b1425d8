import type { Readable } from 'node:stream';
import type { Scope } from '@checkout/contracts';

// The services that own what the gateway's APIs answer (orders, sessions, the webhook dispatcher), as the gateway
// calls them: the ports its routes are given. The clients in clients/ implement them (app.ts wires them in).

/**
 * A call the gateway forwards for a merchant or an operator: the owner validates it and its answer goes back as it is.
 */
export interface ForwardedCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The owner's internal path, query string included. */
  path: string;
  scope: Scope;
  requestId: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An owner's answer, status, headers and parsed JSON body, as it came. */
export interface OwnerAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** An owner's answer whose body is passed on as it comes (a report's CSV, D52), never held whole. */
interface StreamedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

/** The public and admin APIs' forwarding: the gateway checks ids, the owner validates bodies and queries. */
export interface Forwarding {
  forward(call: ForwardedCall): Promise<OwnerAnswer>;
  /** A GET whose answer is streamed (the route's success is not JSON). */
  stream(call: Omit<ForwardedCall, 'body'>): Promise<StreamedAnswer>;
}

/**
 * A request streamed through unchanged: the hosted page's (D41, to sessions) and the processor's signed
 * notifications, whose signature covers the raw body (payments to sessions, D27; refunds to orders, D48).
 */
export interface PassThrough {
  passThrough(request: {
    method: string;
    path: string;
    requestId: string;
    headers: Record<string, string | string[] | undefined>;
    body?: Readable;
  }): Promise<{ status: number; headers: Record<string, string | string[]>; body: Readable }>;
}
