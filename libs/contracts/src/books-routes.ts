import {
  BalanceDailyResponse,
  BalanceResponse,
  BalanceTransactionListResponse,
  BalanceTransactionResponse,
} from './balance';
import { routesOf } from './internal-route';

const orders = routesOf('orders');

/**
 * D52: the internal routes of the books, which orders owns beside the payments and refunds they record
 * (docs/books.md); a part of INTERNAL_ROUTES (internal-routes.ts).
 */
export const BOOKS_ROUTES = {
  listBalanceTransactions: orders({
    method: 'GET',
    path: '/internal/balance-transactions',
    callers: ['gateway'],
    answer: BalanceTransactionListResponse,
    errors: ['INVALID_REQUEST'],
  }),
  getBalanceTransaction: orders({
    method: 'GET',
    path: '/internal/balance-transactions/:balanceTransactionId',
    callers: ['gateway'],
    answer: BalanceTransactionResponse,
    errors: ['BALANCE_TRANSACTION_NOT_FOUND'],
  }),
  getBalance: orders({
    method: 'GET',
    path: '/internal/balance',
    callers: ['gateway'],
    answer: BalanceResponse,
    errors: ['INVALID_REQUEST'],
  }),
  /** The dashboard's chart of payments, refunds and net per UTC day (internal only). */
  balanceDaily: orders({
    method: 'GET',
    path: '/internal/balance/daily',
    callers: ['gateway'],
    answer: BalanceDailyResponse,
    errors: ['INVALID_REQUEST'],
  }),
};
