import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import type {
  BalanceDailyResponse,
  BalanceDay,
  BalanceResponse,
  BalanceTransactionListResponse,
  BalanceTransactionResponse,
  ListBalanceTransactionsQuery,
} from '@checkout/contracts';
import type { StoredBooks, StoredOrders } from './ports';
import type { BalanceScope } from '../store/balance.store';
import { balanceLinesOf } from './balance-lines';
import { presentBalanceTransaction } from './balance.presenter';
import type { OrderDocument } from '../store/order.document';

/**
 * How far behind now `asOf` stays at least: longer than a line's insert takes, so that a line stamped `recordedAt`
 * before asOf but not yet visible to the read is not promised to be in the totals (docs/books.md, "asOf").
 */
export const BALANCE_SETTLE_MS = 2_000;

/** How many scopes one sweep round counts; the next round takes the rest. */
const SWEEP_SCOPES_MAX = 100;

const DAY_MS = 86_400_000;

/** A scope's count step running in this process, and the step asked for after it (null: none yet). */
interface Counting {
  current: Promise<void>;
  next: Promise<void> | null;
}

const ignore = (): void => {};

export interface BooksDeps {
  orders: Pick<StoredOrders, 'getOrder'>;
  books: StoredBooks;
  clock: () => Date;
}

/**
 * D52: the books, kept beside the payments and refunds they record (docs/books.md). The lines of an order are
 * built from the order as stored, off the payment path (the ledger's consumer of orders.events, the sweep, the
 * backfill), and inserted once by their derived ids; the counting adds each line to its balance exactly once.
 */
export class Books {
  /**
   * Per scope (organization, mode, currency), the count step running in this process and the one asked for after
   * it: the only ledger state a replica keeps in memory (docs/operations.md).
   */
  private readonly counting = new Map<string, Counting>();

  constructor(private readonly deps: BooksDeps) {}

  /**
   * Records the lines of order `orderId` that are not stored yet, then counts its scope. Reads the order as it is
   * now, whatever event brought it here: a replay, a duplicate or an event of any version finds every movement so
   * far and makes only the lines missing. Returns how many lines it inserted.
   */
  async recordOrder(scope: Scope, orderId: string): Promise<number> {
    const order = await this.deps.orders.getOrder(scope, orderId);
    if (!order) return 0;
    const lines = balanceLinesOf(order);
    if (lines.length === 0) return 0;
    const now = this.deps.clock();
    const inserted = await this.deps.books.insertMissing(
      scope,
      lines.map((line) => ({ ...line, recordedAt: now })),
    );
    // A step counts these lines (and what else waits in the scope, up to a batch). Nothing inserted, nothing to
    // count: a replay costs two reads; lines a crash left uncounted between the insert and here are the sweep's.
    if (inserted > 0) await this.count({ ...scope, currency: order.currency });
    return inserted;
  }

  /**
   * Counts what waits in the scope, one step at a time per scope in this process. A caller arriving while a step
   * runs (whose read may have come before its lines) waits for the step after it, which the callers arriving
   * meanwhile share: the payments of one merchant arriving together share a step or two, instead of each running
   * its own, all but one of which lose the commit and read again. Steps of other replicas are not coordinated; the
   * store's protocol keeps the counting exactly once whatever runs beside it.
   */
  private count(scope: BalanceScope): Promise<void> {
    const key = `${scope.organizationId}\n${scope.mode}\n${scope.currency}`;
    const state = this.counting.get(key);
    if (!state) return this.step(key, scope, { current: Promise.resolve(), next: null });
    state.next ??= state.current.then(ignore, ignore).then(() => this.step(key, scope, state));
    return state.next;
  }

  private step(key: string, scope: BalanceScope, state: Counting): Promise<void> {
    const current = this.deps.books.countStep(scope, this.deps.clock()).then(ignore);
    state.current = current;
    state.next = null;
    this.counting.set(key, state);
    const forget = () => {
      if (state.current === current && state.next === null) this.counting.delete(key);
    };
    current.then(forget, forget);
    return current;
  }

  /**
   * The backfill's work for one order (migration orders.0002): its lines built from the document the migration
   * read and stored once; the sweep counts them.
   */
  async backfillOrder(order: OrderDocument): Promise<number> {
    const now = this.deps.clock();
    const scope = { organizationId: order.organizationId, mode: order.mode };
    return this.deps.books.insertMissing(
      scope,
      balanceLinesOf(order).map((line) => ({ ...line, recordedAt: now })),
    );
  }

  /**
   * The sweep: counts every scope with a line left uncounted (or a batch left pending) for longer than a consumer
   * takes to count its own. How many lines it added.
   */
  async countStragglers(): Promise<number> {
    const scopes = await this.deps.books.scopesToCount(
      new Date(this.deps.clock().getTime() - BALANCE_SETTLE_MS),
      SWEEP_SCOPES_MAX,
    );
    let added = 0;
    for (const scope of scopes) added += await this.deps.books.countAll(scope, this.deps.clock);
    return added;
  }

  async list(scope: Scope, query: ListBalanceTransactionsQuery): Promise<BalanceTransactionListResponse> {
    const { page, limit } = query;
    const { lines, total } = await this.deps.books.list(
      scope,
      {
        ...(query.type && { type: query.type }),
        ...(query.orderId !== undefined && { orderId: query.orderId }),
        ...(query.createdAfter !== undefined && { createdAfter: new Date(query.createdAfter) }),
        ...(query.createdBefore !== undefined && { createdBefore: new Date(query.createdBefore) }),
      },
      page,
      limit,
    );
    return {
      balanceTransactions: lines.map(presentBalanceTransaction),
      pagination: { page, limit, total, hasMore: page * limit < total },
    };
  }

  /** D4's pattern: another organization's or mode's line is not found, as an unknown one. */
  async get(scope: Scope, id: string): Promise<BalanceTransactionResponse> {
    const line = await this.deps.books.getLine(scope, id);
    if (!line) throw new DomainError('BALANCE_TRANSACTION_NOT_FOUND', `No balance transaction ${id}.`);
    return { balanceTransaction: presentBalanceTransaction(line) };
  }

  /**
   * D52's balance: one read of the totals and one of the oldest uncounted line, at any number of lines. `asOf`:
   * every line recorded before it is in the totals (the oldest uncounted line's recordedAt, or now less the settle
   * margin when none waits).
   */
  async balance(scope: Scope, currency: string): Promise<BalanceResponse> {
    const { balance, oldestUncounted } = await this.deps.books.readBalance({ ...scope, currency });
    const payments = balance?.payments ?? 0;
    const refunds = balance?.refunds ?? 0;
    return {
      balance: {
        currency,
        payments,
        refunds,
        net: payments - refunds,
        count: balance?.count ?? 0,
        asOf: this.asOf(oldestUncounted).toISOString(),
      },
    };
  }

  /** The dashboard's chart: each of the last `days` UTC days (today included), oldest first, from the one read. */
  async daily(scope: Scope, currency: string, days: number): Promise<BalanceDailyResponse> {
    const { balance, oldestUncounted } = await this.deps.books.readBalance({ ...scope, currency });
    const today = Math.floor(this.deps.clock().getTime() / DAY_MS) * DAY_MS;
    const answer: BalanceDay[] = [];
    for (let i = days - 1; i >= 0; i--) {
      const day = new Date(today - i * DAY_MS).toISOString().slice(0, 10);
      // A day's fields appear with its first line of each kind (the counting's $inc).
      const { payments = 0, refunds = 0, count = 0 } = balance?.days[day] ?? {};
      answer.push({ day, payments, refunds, net: payments - refunds, count });
    }
    return { currency, days: answer, asOf: this.asOf(oldestUncounted).toISOString() };
  }

  private asOf(oldestUncounted: Date | null): Date {
    const settled = new Date(this.deps.clock().getTime() - BALANCE_SETTLE_MS);
    return oldestUncounted && oldestUncounted < settled ? oldestUncounted : settled;
  }
}
