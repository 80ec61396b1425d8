import { describe, expect, it } from 'vitest';
import type { Context, Next } from 'koa';
import { DomainError } from '@checkout/errors';
import { idempotency } from './idempotency';
import { IdempotentRequests } from '../domain/idempotent-requests';
import type { BeginResult, IdempotencyStore, StoredResponse } from '../store/idempotency.store';

// The middleware's decisions with a recording store in place of the database (no engines).

type Store = Pick<IdempotencyStore, 'begin' | 'complete' | 'release'>;

function recordingStore(result: BeginResult) {
  const calls: string[] = [];
  const completed: StoredResponse[] = [];
  const store: Store = {
    begin: async () => {
      calls.push('begin');
      return result;
    },
    complete: async (_scope, _id, _token, response) => {
      calls.push('complete');
      completed.push(response);
    },
    release: async () => {
      calls.push('release');
    },
  };
  return { store, calls, completed };
}

function context(headers: Record<string, string>, body?: Record<string, unknown>) {
  const set: Record<string, string> = {};
  const ctx = {
    headers,
    method: 'POST',
    path: '/v0/orders',
    request: { jsonBody: body },
    state: { scope: { organizationId: 'org_1', mode: 'test' }, apiKeyId: 'key_1', requestId: 'req_1' },
    status: 404,
    body: undefined as unknown,
    type: '',
    set: (name: string, value: string) => {
      set[name] = value;
    },
  };
  return { ctx, set };
}

const keepFailures: unknown[] = [];
const run = (store: Store, ctx: unknown, next: Next) =>
  idempotency(new IdempotentRequests(store, () => new Date(0)), (err) => keepFailures.push(err))(ctx as Context, next);

describe('Idempotency-Key middleware (D42)', () => {
  it('When a POST has no Idempotency-Key, then the store is not touched at all (no added round trip)', async () => {
    const { store, calls } = recordingStore({ kind: 'in_use' });
    const { ctx } = context({});
    let ran = false;
    await run(store, ctx, async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(calls).toEqual([]);
  });

  it('When the key is 256 characters, then the request is refused with INVALID_REQUEST before the store', async () => {
    const { store, calls } = recordingStore({ kind: 'in_use' });
    const { ctx } = context({ 'idempotency-key': 'k'.repeat(256) });
    await expect(run(store, ctx, async () => {})).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(calls).toEqual([]);
  });

  it('When the first request answers 201, then that response is stored', async () => {
    const { store, calls, completed } = recordingStore({ kind: 'started', token: 't', since: new Date(0) });
    const { ctx } = context({ 'idempotency-key': 'k1' }, { items: [] });
    await run(store, ctx, async () => {
      ctx.status = 201;
      ctx.body = { order: { id: 'ord_test_1' } };
    });
    expect(calls).toEqual(['begin', 'complete']);
    expect(completed[0]).toEqual({ status: 201, body: JSON.stringify({ order: { id: 'ord_test_1' } }) });
  });

  it('When the handler throws a 4xx domain error, then its error body is stored and the error still reaches the client', async () => {
    const { store, completed } = recordingStore({ kind: 'started', token: 't', since: new Date(0) });
    const { ctx } = context({ 'idempotency-key': 'k1' });
    await expect(
      run(store, ctx, async () => Promise.reject(new DomainError('ORDER_CREATE_FAILED', 'bad'))),
    ).rejects.toMatchObject({ code: 'ORDER_CREATE_FAILED' });
    expect(completed[0]?.status).toBe(400);
    expect(JSON.parse(completed[0]?.body ?? '{}')).toEqual({
      code: 'ORDER_CREATE_FAILED',
      message: 'bad',
      requestId: 'req_1',
    });
  });

  it('When keeping a 201 fails, then the client still gets its 201 and the failure is reported', async () => {
    const { store } = recordingStore({ kind: 'started', token: 't', since: new Date(0) });
    const failing: Store = { ...store, complete: async () => Promise.reject(new Error('database down')) };
    const { ctx } = context({ 'idempotency-key': 'k1' });
    await run(failing, ctx, async () => {
      ctx.status = 201;
      ctx.body = { order: { id: 'ord_test_1' } };
    });
    expect(ctx.status).toBe(201);
    expect(keepFailures.at(-1)).toBeInstanceOf(Error);
  });

  it('When the answer is a 5xx or the handler crashes, then the key is released, not kept', async () => {
    const answered = recordingStore({ kind: 'started', token: 't', since: new Date(0) });
    const first = context({ 'idempotency-key': 'k1' });
    await run(answered.store, first.ctx, async () => {
      first.ctx.status = 503;
    });
    expect(answered.calls).toEqual(['begin', 'release']);

    const crashed = recordingStore({ kind: 'started', token: 't', since: new Date(0) });
    await expect(
      run(crashed.store, context({ 'idempotency-key': 'k1' }).ctx, async () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(crashed.calls).toEqual(['begin', 'release']);
  });

  it('When the key was answered before, then the stored response is replayed with Idempotent-Replayed and the handler does not run', async () => {
    const { store } = recordingStore({
      kind: 'replay',
      response: { status: 201, body: '{"order":{"id":"ord_test_1"}}' },
    });
    const { ctx, set } = context({ 'idempotency-key': 'k1' });
    let ran = false;
    await run(store, ctx, async () => {
      ran = true;
    });
    expect(ran).toBe(false);
    expect(ctx.status).toBe(201);
    expect(ctx.body).toBe('{"order":{"id":"ord_test_1"}}');
    expect(set['Idempotent-Replayed']).toBe('true');
  });

  it('When the key is in use or reused with another body, then 409 with the matching code (IN_USE with Retry-After 1)', async () => {
    await expect(
      run(recordingStore({ kind: 'in_use' }).store, context({ 'idempotency-key': 'k' }).ctx, async () => {}),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE', status: 409, retryAfterSeconds: 1 });
    await expect(
      run(recordingStore({ kind: 'reused' }).store, context({ 'idempotency-key': 'k' }).ctx, async () => {}),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 409 });
  });
});
