import { escapeHtml as e, markup } from '@checkout/html';
import { layout, type PageContext } from './layout';

/** The overview (D47): the two charts and the recovery form; `/dashboard/recover` without a time shows it too. */
export function overviewPage(
  ctx: PageContext,
  charts: { hosts: string; payments: string },
  recoverSince: string,
  heading = 'Overview',
): string {
  const body = markup`
    <h1>${e(heading)}</h1>
    <section class="card" aria-labelledby="h-hosts">
      <h2 id="h-hosts">Webhook endpoints, last 24 hours</h2>
      ${charts.hosts}
    </section>
    <section class="card" aria-labelledby="h-payments">
      <h2 id="h-payments">Payments per hour, last 7 days</h2>
      ${charts.payments}
    </section>
    <section class="card" aria-labelledby="h-recover">
      <h2 id="h-recover">Recover failed webhook deliveries</h2>
      <p>Sends again, once each, every delivery that failed since a time (at most 14 days back). You confirm on the
        next page.</p>
      <form method="get" action="/dashboard/recover" class="filters">
        <div>
          <label for="since">Failed since (UTC)</label>
          <input id="since" name="since" type="datetime-local" value="${e(recoverSince)}" step="1" required>
        </div>
        <div><button type="submit">Review recovery</button></div>
      </form>
    </section>`;
  return layout(ctx, 'Overview', body);
}
