import { createConnection, createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Context, Next } from 'koa';
import { INTERNAL_API_HEADERS } from '@checkout/contracts';
import { createLogger } from '@checkout/logger';
import { errorHandler } from './error-handler';
import { isInfrastructureUnavailable } from './unavailable';

// Found by the soak: during a database restart a request failed with 500 instead of 503. The MongoDB driver
// wrote a command on a pooled connection the restarted server had already closed, and passed on Node's own
// error (code EPIPE, "This socket has been ended by the other party") without wrapping it in a
// MongoNetworkError. An outage must answer 503 whichever way the socket error arrives.

/** The error Node raises for a write on a socket whose peer has ended it: exactly what the driver leaked. */
async function writeAfterPeerEnded(): Promise<Error> {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const socket = createConnection({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' });
    return await new Promise<Error>((resolve, reject) => {
      socket.on('error', () => {});
      // After 'end' Node has shut the writable side (allowHalfOpen is off), as on the driver's pooled socket.
      socket.once('end', () =>
        setImmediate(() =>
          socket.write('ping', (err) => (err ? resolve(err) : reject(new Error('the write succeeded')))),
        ),
      );
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The answer the error handler gives for `err`; `headers` holds what it set. */
async function answerFor(err: unknown): Promise<{ status: number; code: unknown; headers: Record<string, string> }> {
  const headers: Record<string, string> = {};
  const ctx = {
    state: {},
    status: 200,
    body: undefined as unknown,
    set: (name: string, value: string) => void (headers[name] = value),
  } as unknown as Context;
  await errorHandler(createLogger('test', { level: 'silent' }))(ctx, (async () => {
    throw err;
  }) as Next);
  return { status: ctx.status, code: (ctx.body as { code?: unknown }).code, headers };
}

async function statusFor(err: unknown): Promise<{ status: number; code: unknown }> {
  const { status, code } = await answerFor(err);
  return { status, code };
}

describe('a dependency whose socket was closed under it', () => {
  it('When a write fails with EPIPE (peer ended the socket), then it is an outage and the answer is 503', async () => {
    const err = await writeAfterPeerEnded();
    expect((err as NodeJS.ErrnoException).code).toBe('EPIPE');
    expect(isInfrastructureUnavailable(err)).toBe(true);
    expect(await statusFor(err)).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });

  it('When the connection is reset, then 503; when the error is a plain bug, then still 500', async () => {
    expect(await statusFor(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(await statusFor(new TypeError('x is undefined'))).toEqual({ status: 500, code: 'INTERNAL_ERROR' });
  });

  it('When a pool checkout fails because the client is reconnecting (pool closed), then 503', async () => {
    // The driver's own class name; this package matches by name and does not depend on the driver.
    class MongoPoolClosedError extends Error {
      override name = 'MongoPoolClosedError';
    }
    expect(
      await statusFor(new MongoPoolClosedError('Attempted to check out a connection from closed connection pool')),
    ).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });

  it('When a query is stopped by its maxTimeMS (a bounded search), then 503, not 500', async () => {
    // The driver's MongoServerError as the server reports it: code 50, codeName MaxTimeMSExpired.
    class MongoServerError extends Error {
      override name = 'MongoServerError';
      readonly code = 50;
      readonly codeName = 'MaxTimeMSExpired';
    }
    const stopped = await answerFor(new MongoServerError('operation exceeded time limit'));
    expect(stopped).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    // …and says so to an internal caller, which then does not repeat the work (InternalClient); an outage does not.
    expect(stopped.headers[INTERNAL_API_HEADERS.deadlineExceeded]).toBe('true');
    const outage = await answerFor(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    expect(outage.headers[INTERNAL_API_HEADERS.deadlineExceeded]).toBeUndefined();
  });
});
