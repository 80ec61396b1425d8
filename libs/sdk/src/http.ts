import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_HEADER, type ErrorDetail } from '@checkout/contracts';
import { CheckoutApiError, CheckoutConnectionError } from './errors';
import type { QuotaDetail } from '@checkout/errors';

export interface CheckoutOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /** Retries of a 429, a 503, a 409 IDEMPOTENCY_KEY_IN_USE or a network error. Default 2. */
  maxRetries?: number;
  /** Deadline of one attempt. Default 30 s. */
  timeoutMs?: number;
  /** First backoff delay; doubles per retry, with jitter. Default 300 ms. */
  retryDelayMs?: number;
  /** Longest wait between attempts, whatever Retry-After says. Default 10 s. */
  maxRetryDelayMs?: number;
  /** Replaceable for tests or other runtimes. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** For POSTs: your own Idempotency-Key (D42). Without one the SDK makes one per call, reused by its retries. */
  idempotencyKey?: string;
}

export type Query = Record<string, string | number | boolean | undefined>;

const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export class HttpClient {
  private readonly baseUrl: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly apiKey: string,
    options: CheckoutOptions,
  ) {
    if (!/^sk_(test|live)_/.test(apiKey))
      throw new TypeError('The API key must be a secret key: sk_test_... or sk_live_...');
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retryDelayMs = options.retryDelayMs ?? 300;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 10_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /**
   * One API call with retries. A POST always carries an Idempotency-Key, the same on every retry, so a retry
   * after a lost answer returns the first result instead of creating twice (D42).
   */
  async request<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    input: {
      body?: unknown;
      query?: Query;
      options?: RequestOptions;
      /**
       * A POST the API takes without an Idempotency-Key whose repeat is not harmless (a secret rotation: a second one
       * drops the first new secret at once, D50). Retried only when it was surely not done: a 429, refused before it
       * ran; never after a 503 or a lost connection, whose outcome is unknown.
       */
      notRepeatable?: boolean;
    } = {},
  ): Promise<T> {
    const response = await this.send(method, path, input, { accept: 'application/json', deadlineCoversBody: true });
    return parseJson(await response.text()) as T;
  }

  /**
   * A GET whose answer is a file, not JSON (a report's CSV, D52): the response with its body unread, after the same
   * retries as any GET. The timeout covers the wait for the answer's headers only, so a long file can take its time.
   */
  file(path: string): Promise<Response> {
    return this.send('GET', path, {}, { accept: 'text/csv, application/json', deadlineCoversBody: false });
  }

  private async send(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    input: { body?: unknown; query?: Query; options?: RequestOptions; notRepeatable?: boolean },
    answer: { accept: string; deadlineCoversBody: boolean },
  ): Promise<Response> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: answer.accept };
    if (method === 'POST' && !input.notRepeatable)
      headers[IDEMPOTENCY_KEY_HEADER] = input.options?.idempotencyKey ?? `sdk_${randomUUID()}`;
    const retriable = (error: CheckoutApiError | undefined) =>
      input.notRepeatable
        ? error?.status === 429 && error.code !== 'QUOTA_EXCEEDED'
        : error === undefined || isRetriable(error, method);
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);

    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      const deadline = answer.deadlineCoversBody ? wholeDeadline(this.timeoutMs) : headersDeadline(this.timeoutMs);
      try {
        response = await this.fetchImpl(url, {
          method,
          headers,
          ...(body !== undefined && { body }),
          signal: deadline.signal,
        });
      } catch (err) {
        deadline.clear();
        if (attempt < this.maxRetries && retriable(undefined)) {
          await this.pause(attempt, undefined);
          continue;
        }
        throw new CheckoutConnectionError(
          `${method} ${url.pathname} failed: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      deadline.clear();
      if (response.ok) return response;
      const text = await response.text();
      const error = apiError(response, parseJson(text), text);
      if (attempt < this.maxRetries && retriable(error)) {
        await this.pause(attempt, error.retryAfterSeconds);
        continue;
      }
      throw error;
    }
  }

  private pause(attempt: number, retryAfterSeconds: number | undefined): Promise<void> {
    const backoff = this.retryDelayMs * 2 ** attempt * (0.75 + Math.random() / 2);
    const wait = Math.min(this.maxRetryDelayMs, Math.max(backoff, (retryAfterSeconds ?? 0) * 1000));
    return new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The attempt's deadline covers the answer's body too (a JSON answer is read at once). */
function wholeDeadline(ms: number): { signal: AbortSignal; clear: () => void } {
  return { signal: AbortSignal.timeout(ms), clear: () => {} };
}

/** The deadline ends once the headers are in: a file's body is read by the caller, at its own pace. */
function headersDeadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ms} ms`)), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * 429 and 503 say "later"; IN_USE says the first request with this key is still running. A daily budget used up
 * (429 QUOTA_EXCEEDED) says "after midnight UTC": no retry within a call would get through.
 */
function isRetriable(error: CheckoutApiError, method: string): boolean {
  if (error.code === 'QUOTA_EXCEEDED') return false;
  if (error.status === 429 || error.status === 503) return true;
  return method === 'POST' && error.code === 'IDEMPOTENCY_KEY_IN_USE';
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function apiError(response: Response, body: unknown, text: string): CheckoutApiError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as {
    code?: unknown;
    message?: unknown;
    details?: unknown;
    requestId?: unknown;
    quota?: unknown;
  };
  const retryAfter = Number(response.headers.get('retry-after'));
  return new CheckoutApiError({
    status: response.status,
    code: typeof envelope.code === 'string' ? envelope.code : `HTTP_${response.status}`,
    message: typeof envelope.message === 'string' ? envelope.message : text.slice(0, 200) || `HTTP ${response.status}`,
    details: Array.isArray(envelope.details) ? (envelope.details as ErrorDetail[]) : [],
    requestId:
      typeof envelope.requestId === 'string' ? envelope.requestId : (response.headers.get('x-request-id') ?? undefined),
    retryAfterSeconds:
      Number.isFinite(retryAfter) && retryAfter >= 0 && response.headers.has('retry-after') ? retryAfter : undefined,
    ...(typeof envelope.quota === 'object' && envelope.quota !== null && { quota: envelope.quota as QuotaDetail }),
  });
}
