import Koa from 'koa';
import Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '@checkout/errors';
import { listen, type RunningServer } from '@checkout/http';
import { createLogger } from '@checkout/logger';
import type { Scope } from '@checkout/contracts';
import { htmlErrors } from './errors';
import { withinBudget } from './kit';

// The dashboard's forms that record events (a refund, a redelivery, a recovery, a report) count against the daily
// budgets as the same writes through the API do, and a refusal is a page saying which budget and until when.

const checked: Scope[] = [];
let refusal: DomainError | undefined;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  const app = new Koa();
  const pages = new Router({ prefix: '/dashboard' });
  pages.use(htmlErrors(createLogger('gateway', { level: 'silent' })));
  const session: Koa.Middleware = async (ctx, next) => {
    ctx.state.dashboard = {
      scope: { organizationId: 'org_1', mode: 'test' },
      organizationName: 'Org',
      token: 't',
      tokenHash: 'h',
    };
    await next();
  };
  const budgets = {
    check: async (scope: Scope) => {
      checked.push(scope);
      if (refusal) throw refusal;
    },
  };
  pages.post('/recover', session, withinBudget({ budgets }), (ctx) => {
    ctx.status = 303;
  });
  app.use(pages.routes());
  server = await listen(app, { host: '127.0.0.1', port: 0 });
  base = server.url;
});

afterAll(async () => {
  await server?.close();
});

describe("A dashboard form that records events, against its organization and mode's daily budgets", () => {
  it('When within the budget, then it goes on, checked with the session scope', async () => {
    refusal = undefined;
    checked.length = 0;
    const response = await fetch(`${base}/dashboard/recover`, { method: 'POST', redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(checked).toEqual([{ organizationId: 'org_1', mode: 'test' }]);
  });

  it('When a budget is used up, then a 429 page says so, with Retry-After', async () => {
    refusal = new DomainError('QUOTA_EXCEEDED', 'This organization has used up its daily events budget in test mode.', {
      quota: { budget: 'events', limit: 10, resetsAt: '2026-11-30T00:00:00.000Z' },
      retryAfterSeconds: 120,
    });
    const response = await fetch(`${base}/dashboard/recover`, { method: 'POST', redirect: 'manual' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('120');
    const page = await response.text();
    expect(page).toContain('Daily budget used up');
    expect(page).toContain('used up its daily events budget in test mode');
  });
});
