import { Agent, request } from 'undici';

/** What one HTTP exchange ended with: a status code, or no answer at all. */
export type Outcome = number | 'connection-error' | 'timeout';

/** One request as the load generator sent it and what came back; the ledger counts these. */
export interface RequestRecord {
  route: string;
  outcome: Outcome;
  sentAt: number;
  doneAt: number;
}

export interface Reply {
  outcome: Outcome;
  /** Parsed JSON body when there was an answer with one. */
  body: unknown;
}

/** Waits for a pacing interval (retry backoff, steady rate); never stands in for a condition. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A merchant's HTTP client that records every exchange. Timeouts are longer than the gateway's upstream
 * deadline (10 s), so a request that gets no answer in time is a hang of the gateway itself.
 */
export class RecordingClient {
  readonly records: RequestRecord[] = [];
  private readonly agent = new Agent({
    connections: 64,
    headersTimeout: 25_000,
    bodyTimeout: 25_000,
    connectTimeout: 5_000,
  });

  constructor(private readonly baseUrl: string) {}

  async send(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    route: string,
    options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const sentAt = Date.now();
    let reply: Reply;
    try {
      const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      const response = await request(`${this.baseUrl}${path}`, {
        method,
        dispatcher: this.agent,
        headers: {
          ...(options.key !== undefined && { authorization: `Bearer ${options.key}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...options.headers,
        },
        body,
      });
      const text = await response.body.text();
      let parsed: unknown;
      try {
        parsed = text ? (JSON.parse(text) as unknown) : undefined;
      } catch {
        parsed = text;
      }
      reply = { outcome: response.statusCode, body: parsed };
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      reply = { outcome: /TIMEOUT/.test(code) ? 'timeout' : 'connection-error', body: undefined };
    }
    this.records.push({ route, outcome: reply.outcome, sentAt, doneAt: Date.now() });
    return reply;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** A merchant retries what got no definite answer: no response, a 5xx, or a 429. */
export function isRetryable(outcome: Outcome): boolean {
  return typeof outcome !== 'number' || outcome >= 500 || outcome === 429;
}

/**
 * Sends until the answer is definite (not retryable) or the deadline passes; backoff 250 ms doubling to 2 s.
 * `beforeRetry` may settle the matter instead (e.g. a payment found applied after an unknown outcome).
 * Bounded: at most `deadlineMs` of retries, and never past `stopAt`.
 */
export async function sendWithRetries(
  send: () => Promise<Reply>,
  options: { deadlineMs: number; beforeRetry?: () => Promise<Reply | undefined> },
): Promise<Reply> {
  const deadline = Date.now() + options.deadlineMs;
  let delay = 250;
  let reply = await send();
  // D42: a repeat while the first request with that key is still running (or its gateway died holding it) is
  // 409 IDEMPOTENCY_KEY_IN_USE with Retry-After; the outcome is still unknown, so it is retried like a 503.
  const inUse = (r: Reply) =>
    r.outcome === 409 && (r.body as { code?: unknown } | undefined)?.code === 'IDEMPOTENCY_KEY_IN_USE';
  while ((isRetryable(reply.outcome) || inUse(reply)) && Date.now() < deadline) {
    await pause(delay);
    delay = Math.min(delay * 2, 2_000);
    const settled = await options.beforeRetry?.();
    if (settled) return settled;
    reply = await send();
  }
  return reply;
}
