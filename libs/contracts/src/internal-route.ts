import type { z } from 'zod';

// What one internal route declares, and what is derived from a declaration; the table is internal-routes.ts.

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

/** The names of a route's path parameters, from its Koa path (`/internal/orders/:orderId` → 'orderId'). */
type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
export type InternalRouteParams<R extends InternalRoute> = Record<ParamsOf<R['path']>, string>;

/** What a caller reads from a route's success: its answer schema's output, or nothing. */
export type InternalAnswerOf<R extends InternalRoute> = R extends { answer: z.ZodType } ? z.output<R['answer']> : void;

/** A route's path with its parameters filled in, each URI-encoded. */
export function internalPath(route: InternalRoute, params: Readonly<Record<string, string>> = {}): string {
  return route.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.method} ${route.path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}
