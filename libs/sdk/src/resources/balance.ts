import type {
  Balance,
  BalanceResponse,
  BalanceTransaction,
  BalanceTransactionListResponse,
  BalanceTransactionResponse,
} from '@checkout/contracts';
import type { HttpClient } from '../http';
import { isoWindow, ListResult } from '../pagination';
import type { BalanceTransactionListParams } from '../types';

/** D52: the totals of every balance transaction of this key's organization and mode. */
export class BalanceResource {
  constructor(private readonly http: HttpClient) {}

  /**
   * `{currency, payments, refunds, net, count, asOf}` in one currency (default USD): every line recorded before
   * `asOf` is in the totals.
   */
  async retrieve(params: { currency?: string } = {}): Promise<Balance> {
    return (await this.http.request<BalanceResponse>('GET', '/v0/balance', { query: params })).balance;
  }
}

/** D52: one immutable line per money movement (a payment applied, a refund that succeeded). */
export class BalanceTransactions {
  constructor(private readonly http: HttpClient) {}

  async retrieve(id: string): Promise<BalanceTransaction> {
    const path = `/v0/balance_transactions/${encodeURIComponent(id)}`;
    return (await this.http.request<BalanceTransactionResponse>('GET', path)).balanceTransaction;
  }

  /** `await` for one page, `for await` for every line (newest first); filters: type, orderId, created from / before. */
  list(params: BalanceTransactionListParams = {}): ListResult<BalanceTransaction, BalanceTransactionListResponse> {
    const { page = 1, createdAfter, createdBefore, ...rest } = params;
    const query = { ...rest, ...isoWindow({ createdAfter, createdBefore }) };
    return new ListResult(
      (number) =>
        this.http.request<BalanceTransactionListResponse>('GET', '/v0/balance_transactions', {
          query: { ...query, page: number },
        }),
      (p) => p.balanceTransactions,
      page,
    );
  }
}
