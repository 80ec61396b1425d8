import type { CheckoutSession, SessionListResponse } from '@checkout/contracts';
import { escapeHtml as e, formatAmount, markup } from '@checkout/html';
import type { HistoryEntry } from '../../domain/dashboard-views';
import { timeTag } from './html';
import { layout, type PageContext } from './layout';
import { pager, row, scrollTable, status } from './parts';

export function sessionsPage(ctx: PageContext, list: SessionListResponse): string {
  const rows = list.sessions
    .map((s) =>
      row(`<a href="/dashboard/sessions/${e(s.id)}"><code>${e(s.id)}</code></a>`, [
        status(s.status),
        [e(formatAmount(s.order.amounts.total, s.order.currency)), 'num'],
        [timeTag(s.createdAt), 'hide-narrow'],
      ]),
    )
    .join('');
  const table = scrollTable({
    caption: 'Checkout sessions, newest first',
    columns: ['Session', 'Status', ['Total', 'num'], ['Created', 'hide-narrow']],
    rows,
    empty: 'No checkout sessions yet.',
    after: pager(list.pagination, '/dashboard/sessions', {}),
  });
  return layout(ctx, 'Checkout sessions', `<h1>Checkout sessions</h1>${table}`);
}

export function sessionPage(ctx: PageContext, session: CheckoutSession, history: readonly HistoryEntry[]): string {
  const { order } = session;
  const entries = history
    .map((h) => `<li>${timeTag(h.at)} — ${h.href ? `<a href="${e(h.href)}">${e(h.label)}</a>` : e(h.label)}</li>`)
    .join('');
  const body = markup`
    <h1>Checkout session <code>${e(session.id)}</code></h1>
    <section class="card" aria-labelledby="h-s">
      <h2 id="h-s">Summary</h2>
      <dl class="facts">
        <dt>Status</dt><dd>${status(session.status)}</dd>
        <dt>Order</dt><dd><a href="/dashboard/orders/${e(order.id)}"><code>${e(order.id)}</code></a></dd>
        <dt>Total</dt><dd>${e(formatAmount(order.amounts.total, order.currency))}</dd>
        <dt>Paid</dt><dd>${e(formatAmount(order.amounts.paid, order.currency))}</dd>
        <dt>Failed payment attempts</dt><dd>${session.failedAttempts}</dd>
        <dt>Callback URL</dt><dd>${e(session.callbackUrl ?? '—')}</dd>
        <dt>Expires</dt><dd>${timeTag(session.expiresAt)}</dd>
        <dt>Hosted page</dt><dd><a href="${e(session.url)}">${e(session.url)}</a></dd>
      </dl>
    </section>
    <section class="card" aria-labelledby="h-hist">
      <h2 id="h-hist">Status history</h2>
      <ol class="timeline">${entries}</ol>
    </section>`;
  return layout(ctx, `Checkout session ${session.id}`, body);
}
