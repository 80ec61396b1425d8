import type { z } from 'zod';
import {
  ErrorBody,
  internalPath,
  type InternalAnswerOf,
  type InternalRoute,
  type InternalRouteParams,
  type Scope,
} from '@checkout/contracts';
import { DependencyUnavailableError, DomainError, isErrorCode } from '@checkout/errors';
import type { Readable } from 'node:stream';
import { text as readText } from 'node:stream/consumers';
import type { InternalAnswer, InternalClient } from './internal-client';

/** One call of a route of libs/contracts' INTERNAL_ROUTES: what fills its path, query, body and headers. */
export interface InternalCall<R extends InternalRoute> {
  scope?: Scope;
  requestId?: string;
  params?: InternalRouteParams<R>;
  /** Empty values are left out. */
  query?: Readonly<Record<string, string | undefined>>;
  /** The route's request, as a caller builds it (its schema's input) or as one was parsed (its output). */
  body?: R extends { request: z.ZodType } ? z.input<R['request']> | z.output<R['request']> : unknown;
  headers?: Record<string, string>;
  /** Whether a transport failure or a 503 is retried; absent: as the route says (by default only a GET). */
  idempotent?: boolean;
}

/** A success: the answer parsed with the route's schema, and the answer as it came (its headers, its status). */
export interface InternalResult<R extends InternalRoute> {
  value: InternalAnswerOf<R>;
  answer: InternalAnswer;
}

/**
 * The typed call of an internal route, the one place a caller reads a callee's answer: a success is parsed with the
 * route's answer schema; a 4xx becomes the DomainError the callee named (its code, message and details: callers
 * map codes, the status comes from the one table); anything else (a 5xx, a redirect, an answer or a refusal that
 * does not parse) is the callee misbehaving, a DependencyUnavailableError (503) rather than a guess.
 */
export async function callInternal<R extends InternalRoute>(
  client: InternalClient,
  route: R,
  call: InternalCall<R>,
): Promise<InternalResult<R>> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined && value !== '') search.set(name, value);
  const path = internalPath(route, call.params) + (search.size > 0 ? `?${search.toString()}` : '');
  const answer = await client.json({
    method: route.method,
    path,
    ...(call.scope && { scope: call.scope }),
    ...(call.requestId !== undefined && { requestId: call.requestId }),
    body: call.body,
    ...(call.headers && { headers: call.headers }),
    idempotent: call.idempotent ?? route.idempotent ?? route.method === 'GET',
  });
  if (answer.status >= 200 && answer.status < 300) {
    if (route.answer === undefined) return { value: undefined as InternalAnswerOf<R>, answer };
    const parsed = route.answer.safeParse(answer.body);
    if (parsed.success) return { value: parsed.data as InternalAnswerOf<R>, answer };
  } else if (answer.status >= 400 && answer.status < 500) {
    // The callee's D6 envelope, as the DomainError it names.
    const envelope = Refusal.safeParse(answer.body);
    if (envelope.success && isErrorCode(envelope.data.code)) {
      const { code, message, details } = envelope.data;
      throw new DomainError(code, message, details ? { details } : {});
    }
  }
  const error = new Error(`unexpected answer ${answer.status} to ${route.method} ${path}`);
  throw new DependencyUnavailableError(client.service, error);
}

/**
 * A route whose success is a file, not JSON (a report's CSV, D52): its body as a stream, never held whole. A refusal
 * (a 4xx, a small JSON envelope, read whole) is the DomainError the callee named, as callInternal says; anything else
 * is the callee misbehaving (503).
 */
export async function streamInternal<R extends InternalRoute>(
  client: InternalClient,
  route: R & { method: 'GET' },
  call: { scope: Scope; requestId: string; params?: InternalRouteParams<R>; accept: string },
): Promise<{ headers: InternalAnswer['headers']; body: Readable }> {
  const path = internalPath(route, call.params);
  const { scope, requestId } = call;
  const answer = await client.raw({ method: 'GET', path, scope, requestId, headers: { accept: call.accept } });
  if (answer.status >= 200 && answer.status < 300) return { headers: answer.headers, body: answer.body };
  const text = await readText(answer.body);
  if (answer.status >= 400 && answer.status < 500) {
    const envelope = Refusal.safeParse(parseBody(text));
    if (envelope.success && isErrorCode(envelope.data.code)) {
      const { code, message, details } = envelope.data;
      throw new DomainError(code, message, details ? { details } : {});
    }
  }
  throw new DependencyUnavailableError(client.service, new Error(`unexpected answer ${answer.status} to GET ${path}`));
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const Refusal = ErrorBody.pick({ code: true, message: true, details: true });
