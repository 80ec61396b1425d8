import { describe, expect, it } from 'vitest';
import { isDomainError } from '@checkout/errors';
import type { Scope, TenantUsageResponse } from '@checkout/contracts';
import { MerchantBudgets, type TenantUsageSource } from './budgets';

const scope: Scope = { organizationId: 'org_1', mode: 'test' };
const now = new Date('2026-11-29T23:00:00.000Z');

function usage(events: number): TenantUsageResponse {
  return {
    day: '2026-11-29',
    resetsAt: '2026-11-30T00:00:00.000Z',
    budgets: {
      events: { used: events, limit: 10 },
      deliveries: { used: 0, limit: 50 },
      bytes: { used: 0, limit: 1_000 },
    },
  };
}

function budgets(source: TenantUsageSource, overrides: { cacheMs?: number; timeoutMs?: number } = {}) {
  const refused: string[] = [];
  let unchecked = 0;
  const unreadable: unknown[] = [];
  const guard = new MerchantBudgets(source, {
    cacheMs: overrides.cacheMs ?? 1_000,
    timeoutMs: overrides.timeoutMs ?? 250,
    clock: () => now,
    refused: (budget, mode) => refused.push(`${budget}/${mode}`),
    unchecked: () => (unchecked += 1),
    unreadable: (err) => unreadable.push(err),
  });
  return { guard, refused, unreadable, unchecked: () => unchecked };
}

describe("The gateway's check of a write against its organization and mode's daily budgets", () => {
  it('When a budget is used up, then QUOTA_EXCEEDED names it, its limit and reset, with Retry-After until midnight UTC', async () => {
    const { guard, refused } = budgets({ tenantUsage: async () => usage(10) });
    const err: unknown = await guard.check(scope, 'req_1').catch((e: unknown) => e);
    expect(isDomainError(err) && err.code).toBe('QUOTA_EXCEEDED');
    if (!isDomainError(err)) return;
    expect(err.status).toBe(429);
    expect(err.quota).toEqual({ budget: 'events', limit: 10, resetsAt: '2026-11-30T00:00:00.000Z' });
    expect(err.retryAfterSeconds).toBe(3_600);
    expect(refused).toEqual(['events/test']);
  });

  it('When every budget has room, then the write goes on', async () => {
    const { guard, refused } = budgets({ tenantUsage: async () => usage(9) });
    await expect(guard.check(scope, 'req_1')).resolves.toBeUndefined();
    expect(refused).toEqual([]);
  });

  it("When writes follow each other within the cache's time, then the usage is read once per tenant", async () => {
    let reads = 0;
    const { guard } = budgets({
      tenantUsage: async () => {
        reads += 1;
        return usage(0);
      },
    });
    await Promise.all([guard.check(scope, 'a'), guard.check(scope, 'b'), guard.check(scope, 'c')]);
    await guard.check(scope, 'd');
    expect(reads).toBe(1);
    await guard.check({ ...scope, mode: 'live' }, 'e');
    expect(reads).toBe(2);
  });

  it('When the dispatcher fails, then the writes go on (fail open), each counted, the failure told once, and it is asked again only after the pause', async () => {
    let reads = 0;
    const { guard, unchecked, unreadable } = budgets({
      tenantUsage: async () => {
        reads += 1;
        throw new Error('dispatcher down');
      },
    });
    await expect(guard.check(scope, 'a')).resolves.toBeUndefined();
    await expect(guard.check(scope, 'b')).resolves.toBeUndefined();
    await Promise.all([guard.check(scope, 'c'), guard.check(scope, 'd')]);
    expect(unchecked()).toBe(4);
    // Logged per failed read, not per write: an outage under load is one line a second per tenant, not a flood.
    expect(unreadable).toEqual([new Error('dispatcher down')]);
    expect(reads).toBe(1);
  });

  it('When the dispatcher does not answer in time, then the write goes on', async () => {
    const { guard, unchecked, unreadable } = budgets(
      { tenantUsage: () => new Promise<TenantUsageResponse>(() => {}) },
      { timeoutMs: 20 },
    );
    await expect(guard.check(scope, 'a')).resolves.toBeUndefined();
    expect(unchecked()).toBe(1);
    expect(unreadable).toEqual([new Error('the usage was not read in time')]);
  });

  it('When the usage read was of a day that has ended, then it refuses nothing', async () => {
    const { guard } = budgets({ tenantUsage: async () => ({ ...usage(10), resetsAt: '2026-11-29T23:00:00.000Z' }) });
    await expect(guard.check(scope, 'a')).resolves.toBeUndefined();
  });
});
