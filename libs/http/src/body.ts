import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import type { Context, Middleware } from 'koa';
import { DomainError } from '@checkout/errors';
import {
  BODY_DEPTH_MAX,
  PROCESSOR_NOTIFICATION_MAX_BYTES,
  PROCESSOR_SIGNATURE_HEADER,
  jsonDepthExceeds,
  verifyProcessorSignature,
} from '@checkout/contracts';

declare module 'koa' {
  interface Request {
    /** The parsed JSON object body, or undefined when the request carried no body. */
    jsonBody?: Record<string, unknown>;
  }
}

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Content codings a body may arrive in: none. A compressed body we cannot read is refused, never guessed at. */
const ACCEPTED_CODINGS = new Set(['', 'identity']);

/**
 * Reads a JSON object body (D7): not JSON, an array or a bare value, or the wrong content type is
 * INVALID_REQUEST; over the limit is PAYLOAD_TOO_LARGE. A request with no body at all (e.g. POST cancel) is
 * fine and leaves jsonBody undefined. Beyond D7 (docs/decisions.md): a Content-Encoding other than identity is
 * 415 UNSUPPORTED_CONTENT_ENCODING; bytes that are not UTF-8 are INVALID_REQUEST rather than being replaced by
 * U+FFFD; JSON nesting deeper than BODY_DEPTH_MAX is INVALID_REQUEST before any schema looks at it.
 */
export function jsonBody(options: { limitBytes?: number } = {}): Middleware {
  const limit = options.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) {
      await next();
      return;
    }
    const declaredLength = ctx.request.length;
    const hasBody =
      ctx.req.headers['transfer-encoding'] !== undefined || (declaredLength !== undefined && declaredLength > 0);
    if (!hasBody) {
      await next();
      return;
    }
    // A body refused before it was read to the end also ends the connection (Connection: close): otherwise the
    // rest of it keeps the connection busy until Node's request timeout answers 408 on it, and a client that
    // reuses the connection reads that stray 408 as the answer to its next request.
    const refuse = (error: DomainError): never => {
      ctx.set('Connection', 'close');
      throw error;
    };
    const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes.`);
    // Too large, but not absurdly: the rest is read and dropped before the 413 goes out, so the answer follows the
    // whole request as every client expects. Answered early and closed, the unread rest makes the socket reset
    // under the answer: a load balancer (HAProxy) then passed the reset on, and undici's fetch (the SDK's
    // transport) failed with "other side closed" where curl, and a direct connection, got the 413.
    const drainLimit = limit * BODY_DRAIN_FACTOR;
    if (declaredLength !== undefined && declaredLength > limit) {
      if (declaredLength <= drainLimit && (await drained(ctx.req, drainLimit))) throw tooLarge();
      refuse(tooLarge());
    }
    const coding = (ctx.get('content-encoding') || '').trim().toLowerCase();
    if (!ACCEPTED_CODINGS.has(coding)) {
      ctx.set('Accept-Encoding', 'identity');
      refuse(
        new DomainError(
          'UNSUPPORTED_CONTENT_ENCODING',
          'Request bodies are accepted without Content-Encoding (identity) only.',
        ),
      );
    }
    if (!ctx.is('application/json')) {
      refuse(new DomainError('INVALID_REQUEST', 'Request body must be JSON sent with Content-Type: application/json.'));
    }
    let bytes: Buffer;
    try {
      bytes = await getRawBody(ctx.req, { limit, length: declaredLength });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') {
        // A chunked body passed the limit: the rest is dropped as above, up to the same bound.
        if (await drained(ctx.req, drainLimit - limit)) throw tooLarge();
        refuse(tooLarge());
      }
      return refuse(new DomainError('INVALID_REQUEST', 'Request body could not be read.'));
    }
    let raw: string;
    try {
      raw = STRICT_UTF8.decode(bytes);
    } catch {
      throw new DomainError('INVALID_REQUEST', 'Request body is not valid UTF-8.');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new DomainError('INVALID_REQUEST', 'Request body is not valid JSON.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new DomainError('INVALID_REQUEST', 'Request body must be a JSON object.');
    }
    if (jsonDepthExceeds(parsed, BODY_DEPTH_MAX)) {
      throw new DomainError(
        'INVALID_REQUEST',
        `Request body nests objects and arrays more than ${BODY_DEPTH_MAX} levels deep.`,
      );
    }
    ctx.request.jsonBody = parsed as Record<string, unknown>;
    await next();
  };
}

/**
 * A body over the limit is read to its end and dropped, up to this many times the limit, before 413 is answered
 * (jsonBody); a larger one is answered at once and the connection closed (it is not worth reading).
 */
export const BODY_DRAIN_FACTOR = 8;

/**
 * Reads and drops what is left of a request, resolving true once it has ended, false (and leaves the stream
 * paused) when more than `maxBytes` would have to be read or it fails. The stream is never destroyed here: the
 * answer still has to go out on its socket.
 */
function drained(req: IncomingMessage, maxBytes: number): Promise<boolean> {
  if (req.readableEnded || req.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onError);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = () => finish(false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onError);
    req.resume();
  });
}

// fatal: invalid bytes throw instead of turning into U+FFFD; ignoreBOM false: a leading BOM is dropped.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An `application/x-www-form-urlencoded` body of at most `maxBytes` (the hosted page's and the dashboard's forms),
 * read as it streams so a larger one is refused (413 PAYLOAD_TOO_LARGE) without being held; any other content
 * type reads as an empty form.
 */
export async function readUrlEncodedForm(ctx: Context, maxBytes: number): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new DomainError('PAYLOAD_TOO_LARGE', 'Form too large.');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A body exactly as sent, as text, for a signature computed over its bytes (the payment processor's notifications,
 * D27, D48): at most `maxBytes` (413 PAYLOAD_TOO_LARGE beyond, without holding the rest), strict UTF-8.
 */
export async function readRawText(ctx: Context, maxBytes: number): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await getRawBody(ctx.req, { limit: maxBytes });
  } catch (err) {
    ctx.set('Connection', 'close');
    if ((err as { type?: string }).type === 'entity.too.large')
      throw new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${maxBytes} bytes.`);
    throw new DomainError('INVALID_REQUEST', 'Request body could not be read.');
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new DomainError('INVALID_REQUEST', 'Request body is not valid UTF-8.');
  }
}

/**
 * A payment processor's notification (D27 payments to sessions, D48 refunds to orders): its raw body, authenticated
 * by the HMAC over the bytes as sent (401 UNAUTHORIZED otherwise), then read as JSON (400 INVALID_REQUEST).
 */
export async function readProcessorNotification(ctx: Context, secret: string, now: Date): Promise<unknown> {
  const raw = await readRawText(ctx, PROCESSOR_NOTIFICATION_MAX_BYTES);
  const check = verifyProcessorSignature(secret, raw, ctx.get(PROCESSOR_SIGNATURE_HEADER) || undefined, now);
  if (!check.ok) throw new DomainError('UNAUTHORIZED', `Processor signature ${check.reason}.`);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new DomainError('INVALID_REQUEST', 'Notification body is not valid JSON.');
  }
}
