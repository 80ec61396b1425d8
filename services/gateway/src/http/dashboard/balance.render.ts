import {
  BALANCE_TRANSACTION_TYPES,
  type Balance,
  type BalanceTransaction,
  type BalanceTransactionListResponse,
  type Report,
} from '@checkout/contracts';
import { escapeHtml as e, formatAmount, markup } from '@checkout/html';
import { dailyBalanceChart, type DayTotals } from './charts';
import { timeTag } from './html';
import { layout, type PageContext } from './layout';
import { filterSection, notice, pager, row, scrollTable, select, status, text, timeInput } from './parts';

// The Balance page (D52): the totals, money per day, the lines with D51-style filters and pages, and a
// "Download CSV" form that runs a report of the lines and then offers its file.

/** The lines' filters, as the form sends them; times are datetime-local values read as UTC. */
export interface BalanceFilters {
  type?: string | undefined;
  orderId?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

export interface BalanceView {
  balance: Balance;
  days: readonly DayTotals[];
  list: BalanceTransactionListResponse;
  filters: BalanceFilters;
  /** The report the Download CSV button started, when the page is shown after it. */
  report?: Report | undefined;
  /** A one-time key for the Download CSV form: the same form sent twice runs one report. */
  formKey: string;
  /** The window a report covers without times in the filters (D52 allows 366 days at most). */
  defaultWindow: { createdAfter: string; createdBefore: string };
  error?: string | undefined;
}

function totals(balance: Balance): string {
  const money = (minor: number) => e(formatAmount(minor, balance.currency));
  return markup`
    <section class="card" aria-labelledby="h-totals">
      <h2 id="h-totals">Totals</h2>
      <dl class="facts">
        <dt>Payments</dt><dd data-total="payments">${money(balance.payments)}</dd>
        <dt>Refunds</dt><dd data-total="refunds">${money(balance.refunds)}</dd>
        <dt>Net</dt><dd data-total="net"><strong>${money(balance.net)}</strong></dd>
        <dt>Lines</dt><dd data-total="count">${balance.count}</dd>
        <dt>As of</dt><dd>${timeTag(balance.asOf)}</dd>
      </dl>
      <p>Every line recorded before that time is in these totals.</p>
    </section>`;
}

/** What the report the button started says now: building, its file, or why it failed. */
function reportState(report: Report | undefined): string {
  if (report === undefined) return '';
  const what = `Report <code>${e(report.id)}</code> ${status(report.status)}`;
  if (report.status === 'pending')
    return `<p role="status" data-report-status="pending">${what}: being built. Reload this page to see when it is ready.</p>`;
  if (report.status === 'failed')
    return markup`
      <p role="status" data-report-status="failed">${what}: it could not be built
        (${e(report.failureReason ?? 'no reason given')}). Press Download CSV again to run a new one.</p>`;
  return markup`
    <p role="status" data-report-status="succeeded">${what}: ${report.rows ?? 0} lines recorded up to
      ${timeTag(report.asOf ?? report.createdAt)}.
      <a class="button" href="/dashboard/balance/reports/${e(report.id)}/file" download>Download the CSV file</a></p>`;
}

function downloadForm(ctx: PageContext, view: BalanceView): string {
  const after = view.filters.createdAfter || view.defaultWindow.createdAfter;
  const before = view.filters.createdBefore || view.defaultWindow.createdBefore;
  return markup`
    <section class="card" aria-labelledby="h-csv">
      <h2 id="h-csv">Download CSV</h2>
      <p>A CSV file of the lines created in this window (UTC, at most 366 days), one row per line, amounts in minor
        units; it holds what was recorded when it is built. The type and order filters do not apply to it.</p>
      <form method="post" action="/dashboard/balance/report" class="filters">
        <input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">
        <input type="hidden" name="key" value="${e(view.formKey)}">
        ${timeInput('reportAfter', 'Created from (UTC)', after)}
        ${timeInput('reportBefore', 'Created before (UTC)', before)}
        <div><button type="submit">Download CSV</button></div>
      </form>
      ${reportState(view.report)}
    </section>`;
}

function linesTable(view: BalanceView): string {
  const money = (line: BalanceTransaction) => e(formatAmount(line.amount, line.currency));
  const rows = view.list.balanceTransactions
    .map((line) =>
      row(`<code>${e(line.id)}</code>`, [
        status(line.type),
        `<a href="/dashboard/orders/${e(line.orderId)}"><code>${e(line.orderId)}</code></a>`,
        [money(line), 'num'],
        [timeTag(line.createdAt), 'hide-narrow'],
        [`<code>${e(line.sourceId)}</code>`, 'hide-narrow'],
      ]),
    )
    .join('');
  const filtered = Object.values(view.filters).some((value) => value !== undefined && value !== '');
  return scrollTable({
    caption: 'Balance transactions, newest first',
    columns: [
      'Line',
      'Type',
      'Order',
      ['Amount', 'num'],
      ['Created', 'hide-narrow'],
      ['Payment or refund', 'hide-narrow'],
    ],
    rows,
    empty: filtered ? 'No lines match.' : 'No lines yet: a payment or a refund that succeeds makes one.',
    after: pager(view.list.pagination, '/dashboard/balance', { ...view.filters }),
  });
}

export function balancePage(ctx: PageContext, view: BalanceView): string {
  const money = (minor: number) => formatAmount(minor, view.balance.currency);
  const filters = filterSection('/dashboard/balance', [
    select('type', 'Type', BALANCE_TRANSACTION_TYPES, view.filters.type),
    text('orderId', 'Order id', view.filters.orderId, 'ord_test_…'),
    timeInput('createdAfter', 'Created from (UTC)', view.filters.createdAfter),
    timeInput('createdBefore', 'Created before (UTC)', view.filters.createdBefore),
  ]);
  const body = markup`
    <h1>Balance</h1>${notice(view.error, 'error')}
    ${totals(view.balance)}
    <section class="card" aria-labelledby="h-days">
      <h2 id="h-days">Money per day, last ${view.days.length} days</h2>
      ${dailyBalanceChart(view.days, money)}
    </section>
    ${downloadForm(ctx, view)}
    ${filters}
    ${linesTable(view)}`;
  return layout(ctx, 'Balance', body);
}
