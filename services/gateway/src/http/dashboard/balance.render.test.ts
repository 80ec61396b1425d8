import { describe, expect, it } from 'vitest';
import { balancePage, type BalanceView } from './balance.render';
import { dailyBalanceChart } from './charts';
import type { PageContext } from './layout';

// The Balance page's HTML (D52) from given data: what the merchant reads and the forms it sends.

const ctx: PageContext = {
  nonce: 'n',
  mode: 'test',
  organizationName: 'Shop',
  csrfToken: 'csrf-1',
  section: 'balance',
};
const line = (id: string, type: 'payment' | 'refund', amount: number) => ({
  id,
  type,
  orderId: 'ord_test_1',
  sourceId: type === 'payment' ? 'pay_test_1' : 're_test_1',
  amount,
  currency: 'USD',
  createdAt: '2026-11-28T10:00:00.000Z',
  recordedAt: '2026-11-28T10:00:01.000Z',
});

function view(extra: Partial<BalanceView> = {}): BalanceView {
  return {
    balance: {
      currency: 'USD',
      payments: 112_500,
      refunds: 12_500,
      net: 100_000,
      count: 3,
      asOf: '2026-11-29T08:00:00.000Z',
    },
    days: [
      { day: '2026-11-27', payments: 0, refunds: 0, net: 0 },
      { day: '2026-11-28', payments: 112_500, refunds: 12_500, net: 100_000 },
    ],
    list: {
      balanceTransactions: [line('txn_test_b', 'refund', -12_500), line('txn_test_a', 'payment', 112_500)],
      pagination: { page: 1, limit: 25, total: 26, hasMore: true },
    },
    filters: { type: 'refund', orderId: 'ord_test_1' },
    formKey: 'k'.repeat(24),
    defaultWindow: { createdAfter: '2026-10-30T00:00:00', createdBefore: '2026-11-30T00:00:00' },
    ...extra,
  };
}

describe('the Balance page (D52)', () => {
  it('When it is shown, then the totals in the currency, the lines with signed amounts, and a pager that keeps the filters', () => {
    const html = balancePage(ctx, view());
    expect(html).toMatch(/data-total="payments">\$1,125\.00</);
    expect(html).toMatch(/data-total="refunds">\$125\.00</);
    expect(html).toMatch(/data-total="net"><strong>\$1,000\.00</);
    expect(html).toContain('<code>txn_test_b</code>');
    expect(html).toContain('>−$125.00</td>');
    expect(html).toContain('href="/dashboard/balance?type=refund&amp;orderId=ord_test_1&amp;page=2"');
    expect(html).toContain('<option value="refund" selected>');
    expect(html).toContain('aria-current="page">Balance</a>');
  });

  it("When the Download CSV form is drawn, then it posts the CSRF token, a one-time key and the window (the filters' or the default)", () => {
    const html = balancePage(ctx, view());
    const form = /<form method="post" action="\/dashboard\/balance\/report"[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
    expect(form).toContain('name="csrf" value="csrf-1"');
    expect(form).toContain(`name="key" value="${'k'.repeat(24)}"`);
    expect(form).toContain('name="reportAfter" type="datetime-local" step="1" value="2026-10-30T00:00:00"');
    const filtered = balancePage(ctx, view({ filters: { createdAfter: '2026-11-01T00:00' } }));
    expect(filtered).toContain('name="reportAfter" type="datetime-local" step="1" value="2026-11-01T00:00"');
  });

  it('When a report was started, then the page says it is being built, why it failed, or links its file once it succeeded', () => {
    const base = {
      id: 'rpt_test_1',
      type: 'balance_transactions',
      createdAfter: '2026-11-01T00:00:00.000Z',
      createdBefore: '2026-12-01T00:00:00.000Z',
      createdAt: '2026-11-29T08:00:00.000Z',
    };
    const pending = balancePage(
      ctx,
      view({ report: { ...base, status: 'pending' } as unknown as BalanceView['report'] }),
    );
    expect(pending).toContain('data-report-status="pending"');
    expect(pending).not.toContain('/file');
    const failed = balancePage(
      ctx,
      view({ report: { ...base, status: 'failed', failureReason: '<too big>' } as unknown as BalanceView['report'] }),
    );
    expect(failed).toContain('&lt;too big&gt;');
    const done = balancePage(
      ctx,
      view({
        report: {
          ...base,
          status: 'succeeded',
          rows: 2,
          asOf: '2026-11-29T07:59:58.000Z',
          fileUrl: '/v0/reports/rpt_test_1/file',
        } as unknown as BalanceView['report'],
      }),
    );
    expect(done).toContain('data-report-status="succeeded"');
    expect(done).toContain('2 lines recorded up to');
    expect(done).toContain('href="/dashboard/balance/reports/rpt_test_1/file"');
  });

  it('When no line matches, then the table says so; with no line at all, then how lines come to be', () => {
    const empty = { balanceTransactions: [], pagination: { page: 1, limit: 25, total: 0, hasMore: false } };
    expect(balancePage(ctx, view({ list: empty }))).toContain('No lines match.');
    expect(balancePage(ctx, view({ list: empty, filters: {} }))).toContain('No lines yet');
  });
});

describe("the Balance page's chart (D52)", () => {
  const money = (minor: number) => `$${(minor / 100).toFixed(2)}`;

  it('When days have money, then bars for payments and refunds, a description with the totals, and a table of the days money moved', () => {
    const html = dailyBalanceChart(view().days, money);
    expect(html.match(/class="c-ok"/g)).toHaveLength(1);
    expect(html.match(/class="c-bad"/g)).toHaveLength(1);
    expect(html.match(/class="c-net"/g)).toHaveLength(1);
    expect(html).toContain('From 2026-11-27 to 2026-11-28 (UTC): payments $1125.00, refunds $125.00, net $1000.00.');
    expect(html).toContain('<th scope="row">2026-11-28</th>');
    // A day without money is a gap in the chart, not a row of zeros in its table.
    expect(html).not.toContain('<th scope="row">2026-11-27</th>');
  });

  it('When no day is given, then it says no money has moved', () => {
    expect(dailyBalanceChart([], money)).toBe('<p>No money has moved yet.</p>');
  });
});
