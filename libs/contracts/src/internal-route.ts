import type { z } from 'zod';

/** The services that answer internal calls. */
export type InternalService = 'gateway' | 'orders' | 'sessions' | 'webhook-dispatcher';
/** Who calls them: a service, or an operators' job with a credential of its own. */
export type InternalCaller = InternalService | 'dead-letter-replay';
export type InternalMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One internal route, declared once: the callee's internal auth lets exactly its callers in (libs/http's
 * `internalRouteRules`), a caller's typed call builds its path and parses its answer from it (libs/http's
 * `callInternal`), and the contract tests require a recorded fixture of each (route, caller).
 */
export interface InternalRoute {
  callee: InternalService;
  method: InternalMethod;
  /** Koa's form: `:name` for a path parameter. */
  path: string;
  callers: readonly InternalCaller[];
  /** The body the callee validates (strictly, D7); absent: none, or the callee's own public schema. */
  request?: z.ZodType;
  /** The success body a caller reads itself; absent: nothing read (a 204), or only passed on as it came. */
  answer?: z.ZodType;
  /** The error codes the callee answers that its callers read and map (the recorded 4xx fixtures stay within). */
  errors?: readonly string[];
  /** Retried after a transport failure or a 503; absent: only a GET (a payment is idempotent by its id, D27). */
  idempotent?: boolean;
  /** Signed by the payment processor (HMAC over the raw body) and passed through unchanged: no token, no fixture. */
  processorSigned?: true;
}

/** A route of one callee, its literal types kept (its path's parameters, its answer's schema). */
export const routesOf =
  <const S extends InternalService>(callee: S) =>
  <const R extends Omit<InternalRoute, 'callee'>>(route: R): R & { callee: S } => ({ ...route, callee });
