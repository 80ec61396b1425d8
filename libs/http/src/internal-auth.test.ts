import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { DomainError } from '@checkout/errors';
import { internalAuth } from './internal-auth';

// Internal calls carry one of the accepted internal tokens; two are accepted only during a rotation.

function call(middleware: ReturnType<typeof internalAuth>, headers: Record<string, string>) {
  const ctx = { get: (name: string) => headers[name] ?? '', state: {} as Record<string, unknown> };
  let reached = false;
  const run = middleware(ctx as unknown as Context, async () => {
    reached = true;
  });
  return { run, ctx, reached: () => reached };
}

const scopeHeaders = { 'x-organization-id': 'org_1', 'x-mode': 'test' };

describe('internalAuth', () => {
  const rotating = internalAuth(['old-internal-token-0123456789', 'new-internal-token-0123456789']);

  it('When either token of a rotation is given, then the call goes on with its scope', async () => {
    for (const token of ['old-internal-token-0123456789', 'new-internal-token-0123456789']) {
      const { run, ctx, reached } = call(rotating, { 'x-internal-token': token, ...scopeHeaders });
      await run;
      expect(reached()).toBe(true);
      expect(ctx.state.scope).toEqual({ organizationId: 'org_1', mode: 'test' });
    }
  });

  it.each([
    ['a wrong token', { 'x-internal-token': 'new-internal-token-012345678' }],
    ['no token', {}],
  ])('When %s is given, then 401 UNAUTHORIZED and the call stops', async (_label, headers) => {
    const { run, reached } = call(rotating, { ...headers, ...scopeHeaders });
    await expect(run).rejects.toSatisfy((err: unknown) => err instanceof DomainError && err.code === 'UNAUTHORIZED');
    expect(reached()).toBe(false);
  });
});
