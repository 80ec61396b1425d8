import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { DomainError, isDomainError } from '@checkout/errors';
import { isIdOf } from '@checkout/contracts';
import { balanceView, BALANCE_CHART_DAYS } from '../../domain/dashboard-reads';
import { sinceFromForm } from '../../domain/dashboard-views';
import { balancePage, type BalanceFilters } from './balance.render';
import {
  one,
  pageCtx,
  requestId,
  respond,
  scopeOf,
  seeOther,
  verifiedForm,
  withinBudget,
  type DashboardDeps,
  type MountSection,
} from './kit';

// The Balance page (D52): totals, money per day, the lines with their filters, and the Download CSV button, which
// runs a report of the lines (a form POST with the session's CSRF token and a one-time key) and then shows its state
// and, once it succeeded, its file, streamed from orders through this route with the session's scope.

const DAY = 86_400_000;

/** The Download CSV form's window without times in the filters: the chart's days, up to the end of today (UTC). */
function defaultWindow(now: Date): { createdAfter: string; createdBefore: string } {
  const tomorrow = Math.floor(now.getTime() / DAY) * DAY + DAY;
  const local = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  return { createdAfter: local(tomorrow - BALANCE_CHART_DAYS * DAY), createdBefore: local(tomorrow) };
}

function filtersOf(ctx: Context): BalanceFilters {
  return {
    type: one(ctx.query.type),
    orderId: one(ctx.query.orderId)?.trim(),
    createdAfter: one(ctx.query.createdAfter),
    createdBefore: one(ctx.query.createdBefore),
  };
}

async function showBalance(ctx: Context, deps: DashboardDeps, notice?: { error: string }): Promise<void> {
  const filters = filtersOf(ctx);
  const time = (value: string | undefined) => (value ? (sinceFromForm(value) ?? value) : undefined);
  const reportId = one(ctx.query.report);
  const common = {
    filters,
    formKey: randomBytes(18).toString('base64url'),
    defaultWindow: defaultWindow(deps.clock()),
    ...(notice && { error: notice.error }),
  };
  try {
    const view = await balanceView(deps.upstreams, scopeOf(ctx), requestId(ctx), {
      query: { ...filters, createdAfter: time(filters.createdAfter), createdBefore: time(filters.createdBefore) },
      page: one(ctx.query.page),
      reportId: isIdOf('rpt', reportId) ? reportId : undefined,
    });
    respond(ctx, balancePage(pageCtx(ctx, 'balance'), { ...view, ...common }));
  } catch (err) {
    // A filter orders refused (a malformed order id or time): the page says so beside the filters.
    if (!isDomainError(err) || err.code !== 'INVALID_REQUEST') throw err;
    const view = await balanceView(deps.upstreams, scopeOf(ctx), requestId(ctx), { query: {}, page: '1' });
    const empty = { balanceTransactions: [], pagination: { page: 1, limit: 25, total: 0, hasMore: false } };
    const error = `Those filters are not valid: ${err.message}`;
    respond(ctx, balancePage(pageCtx(ctx, 'balance'), { ...view, ...common, list: empty, error }));
  }
}

export const mountBalancePages: MountSection = (pages, deps, session) => {
  pages.get('/balance', session, (ctx) => showBalance(ctx, deps));

  pages.post('/balance/report', session, withinBudget(deps), async (ctx) => {
    const form = await verifiedForm(ctx);
    const key = form.get('key') ?? '';
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(key))
      throw new DomainError('REPORT_CREATE_FAILED', 'This form is incomplete; reload the Balance page.');
    const createdAfter = sinceFromForm(form.get('reportAfter') ?? undefined);
    const createdBefore = sinceFromForm(form.get('reportBefore') ?? undefined);
    if (createdAfter === undefined || createdBefore === undefined) {
      await showBalance(ctx, deps, { error: 'Give both times of the report, e.g. 2026-11-01T00:00.' });
      return;
    }
    try {
      const body = { type: 'balance_transactions' as const, createdAfter, createdBefore };
      const { report } = await deps.upstreams.orders.createReport(scopeOf(ctx), requestId(ctx), body, key);
      seeOther(ctx, `/dashboard/balance?report=${encodeURIComponent(report.id)}`);
    } catch (err) {
      // A window orders refused (over 366 days, or its end before its start) is said on the page.
      if (!isDomainError(err) || err.code !== 'REPORT_CREATE_FAILED') throw err;
      const problems = err.details?.map((d) => d.message).join('; ') || err.message;
      await showBalance(ctx, deps, { error: `No report was started: ${problems}` });
    }
  });

  pages.get('/balance/reports/:reportId/file', session, async (ctx) => {
    const id = ctx.params.reportId;
    if (!isIdOf('rpt', id)) throw new DomainError('REPORT_NOT_FOUND', 'No such report.');
    const file = await deps.upstreams.orders.reportFile(scopeOf(ctx), requestId(ctx), id);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="${id}.csv"`);
    ctx.body = file;
  });
};
