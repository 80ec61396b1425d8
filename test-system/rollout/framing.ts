import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** Every method a client may send, HEAD included: the order they are sent in is the test's to choose. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];

export interface FramedAnswer {
  method: Method;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
  /** Whether this request went out on a connection an earlier answer had left open. */
  reusedSocket: boolean;
}

/** What went wrong on the connection: node:http's parser error ("Data after Connection: close", …). */
export interface FramingFailure {
  method: Method;
  path: string;
  error: string;
}

/**
 * Sends `sequence` one request after another on one keep-alive connection (an agent of one socket), each with a
 * `{}` JSON body declared by its Content-Length, HEAD and GET included. Whatever a server answers, a well-framed
 * answer leaves the connection readable for the next one: a parse error is a failure.
 *
 * Declared, because node:http does not frame a body it is given on GET, HEAD, DELETE or OPTIONS: it sends the bytes
 * with neither Content-Length nor chunked encoding. HTTP/1.1 reads such a request as having no body (RFC 9112 §6.3),
 * so `{}` is the start of the next request, an invalid one: HAProxy answers it 400 with Connection: close on the
 * same connection, which the client reads as "Data after Connection: close" after a HEAD's answer (a replica
 * directly closes the connection instead, and the next request on it fails). No server can answer bytes it cannot
 * know are a body; the outside suite's failure was that, and a client sends Content-Length.
 */
export async function sendOnOneConnection(
  baseUrl: string,
  sequence: ReadonlyArray<{ method: Method; path: string }>,
  headers: Record<string, string>,
): Promise<{ answers: FramedAnswer[]; failures: FramingFailure[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers: FramedAnswer[] = [];
  const failures: FramingFailure[] = [];
  try {
    for (const { method, path } of sequence) {
      try {
        answers.push(await send(agent, new URL(path, baseUrl), method, headers));
      } catch (err) {
        failures.push({ method, path, error: (err as Error).message });
      }
    }
  } finally {
    agent.destroy();
  }
  return { answers, failures };
}

function send(agent: Agent, url: URL, method: Method, headers: Record<string, string>): Promise<FramedAnswer> {
  const body = '{}';
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) },
        timeout: 15_000,
      },
      (res) => {
        let bodyBytes = 0;
        res.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            method,
            path: url.pathname,
            status: res.statusCode ?? 0,
            headers: res.headers,
            bodyBytes,
            reusedSocket: req.reusedSocket,
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** The headers HEAD must share with GET (RFC 9110 §9.3.2): what describes the representation, not the exchange. */
export function representationHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const kept = ['content-type', 'content-length', 'allow', 'cache-control', 'content-security-policy'];
  return Object.fromEntries(kept.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));
}

/** A seeded shuffle, so a failing order can be replayed from the seed the test prints. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
