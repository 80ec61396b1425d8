import Router from '@koa/router';
import { requireScope } from '@checkout/http';
import type { TenantBudgets } from '../domain/budgets';

/** The merchant's usage of its daily budgets, for the gateway, which refuses its writes past one (QUOTA_EXCEEDED). */
export function usageRoutes(budgets: Pick<TenantBudgets, 'usageOf'>): Router {
  const router = new Router({ prefix: '/internal/usage' });
  router.get('/', async (ctx) => {
    ctx.body = await budgets.usageOf(requireScope(ctx.state));
  });
  return router;
}
