import Router from '@koa/router';
import { DomainError } from '@checkout/errors';
import { parseOrThrow, requireScope } from '@checkout/http';
import { BalanceDailyQuery, BalanceQuery, ListBalanceTransactionsQuery, isIdOf } from '@checkout/contracts';
import type { Books } from '../domain/books.use-cases';

function balanceTransactionIdParam(value: string | undefined): string {
  if (!isIdOf('txn', value))
    throw new DomainError('INVALID_BALANCE_TRANSACTION_ID', `"${value ?? ''}" is not a balance transaction id.`);
  return value;
}

/** D52: the books through the gateway (the lines, the balance) and the dashboard's chart. */
export function balanceRoutes(books: Books): Router {
  const router = new Router();

  router.get('/internal/balance-transactions', async (ctx) => {
    const query = parseOrThrow(ListBalanceTransactionsQuery, ctx.query, 'INVALID_REQUEST');
    ctx.body = await books.list(requireScope(ctx.state), query);
  });

  router.get('/internal/balance-transactions/:balanceTransactionId', async (ctx) => {
    const id = balanceTransactionIdParam(ctx.params.balanceTransactionId);
    ctx.body = await books.get(requireScope(ctx.state), id);
  });

  router.get('/internal/balance', async (ctx) => {
    const { currency } = parseOrThrow(BalanceQuery, ctx.query, 'INVALID_REQUEST');
    ctx.body = await books.balance(requireScope(ctx.state), currency);
  });

  router.get('/internal/balance/daily', async (ctx) => {
    const { currency, days } = parseOrThrow(BalanceDailyQuery, ctx.query, 'INVALID_REQUEST');
    ctx.body = await books.daily(requireScope(ctx.state), currency, days);
  });

  return router;
}
