import type { DeliveryStatsResponse, PaymentsPerHourResponse } from '@checkout/contracts';
import { escapeHtml as e, markup } from '@checkout/html';
import { row, scrollTable } from './parts';

// D47: charts are inline SVG drawn on the server (no script, no external library, allowed by the CSP as part of
// the document). Each has a <title> and <desc> that say what it shows, and a table beside it with the numbers,
// so a screen reader user, or anyone, can read the values rather than estimate bar lengths.

const percent = (n: number, of: number) => (of === 0 ? 0 : Math.round((n * 1000) / of) / 10);

type Host = DeliveryStatsResponse['hosts'][number];

const ROW_HEIGHT = 28;
const LABEL_WIDTH = 180;
const BAR_WIDTH = 300;

function hostBar(h: Host, i: number): string {
  const y = i * ROW_HEIGHT + 5;
  const rate = percent(h.succeeded, h.attempts);
  const width = Math.max(1, Math.round((BAR_WIDTH * rate) / 100));
  const label = h.host.length > 24 ? `${h.host.slice(0, 23)}…` : h.host;
  const health = rate >= 99 ? 'c-ok' : rate >= 90 ? 'c-warn' : 'c-bad';
  return markup`
    <text x="0" y="${y + 17}" class="c-label">${e(label)}</text>
    <rect x="${LABEL_WIDTH}" y="${y + 4}" width="${BAR_WIDTH}" height="16" class="c-track"/>
    <rect x="${LABEL_WIDTH}" y="${y + 4}" width="${width}" height="16" class="${health}"/>
    <text x="${LABEL_WIDTH + BAR_WIDTH + 8}" y="${y + 17}" class="c-label">${rate}% · p95 ${h.p95DurationMs} ms</text>`;
}

function hostsTable(hosts: readonly Host[]): string {
  const rows = hosts
    .map((h) =>
      row(e(h.host), [
        [String(h.attempts), 'num'],
        [String(h.succeeded), 'num'],
        [`${percent(h.succeeded, h.attempts)}%`, 'num'],
        [`${h.p95DurationMs} ms`, 'num'],
      ]),
    )
    .join('');
  return scrollTable({
    caption: 'Webhook attempts per callback host, last 24 hours',
    columns: ['Host', ['Attempts', 'num'], ['Succeeded', 'num'], ['Success rate', 'num'], ['p95 duration', 'num']],
    rows,
    card: false,
  });
}

export function deliveryHostsChart(stats: DeliveryStatsResponse): string {
  if (stats.hosts.length === 0) return '<p>No webhook attempts in the last 24 hours.</p>';
  const height = stats.hosts.length * ROW_HEIGHT + 10;
  const summary = stats.hosts
    .map(
      (h) =>
        `${h.host}: ${percent(h.succeeded, h.attempts)}% of ${h.attempts} attempts succeeded, p95 ${h.p95DurationMs} ms`,
    )
    .join('; ');
  return markup`
    <figure>
      <svg role="img" aria-labelledby="hosts-title hosts-desc" viewBox="0 0 ${LABEL_WIDTH + BAR_WIDTH + 190} ${height}"
        class="chart">
        <title id="hosts-title">Success rate and p95 duration per callback host, last 24 hours</title>
        <desc id="hosts-desc">${e(summary)}</desc>
        ${stats.hosts.map(hostBar).join('')}
      </svg>
    </figure>
    ${hostsTable(stats.hosts)}`;
}

const WIDTH = 672;
const HEIGHT = 120;

function paymentBars(data: PaymentsPerHourResponse): string {
  const max = Math.max(1, ...data.hours.map((h) => h.count));
  const barWidth = WIDTH / Math.max(1, data.hours.length);
  return data.hours
    .map((h, i) => {
      if (h.count === 0) return '';
      const barHeight = Math.max(1, Math.round(((HEIGHT - 20) * h.count) / max));
      const x = (i * barWidth).toFixed(2);
      const width = Math.max(1, barWidth - 1).toFixed(2);
      return `<rect x="${x}" y="${HEIGHT - 14 - barHeight}" width="${width}" height="${barHeight}" class="c-ok"/>`;
    })
    .join('');
}

function paymentsPerDayTable(data: PaymentsPerHourResponse): string {
  const days = new Map<string, { count: number; amount: number }>();
  for (const h of data.hours) {
    const day = h.hour.slice(0, 10);
    const entry = days.get(day) ?? { count: 0, amount: 0 };
    entry.count += h.count;
    entry.amount += h.amount;
    days.set(day, entry);
  }
  const rows = [...days]
    .map(([day, v]) => `<tr><th scope="row">${e(day)}</th><td class="num">${v.count}</td></tr>`)
    .join('');
  return markup`
    <table>
      <caption>Payments per day, last 7 days (UTC)</caption>
      <thead><tr><th scope="col">Day</th><th scope="col" class="num">Payments</th></tr></thead>
      <tbody>${rows}</tbody>
    </table>`;
}

export function paymentsPerHourChart(data: PaymentsPerHourResponse): string {
  const total = data.hours.reduce((n, h) => n + h.count, 0);
  const peak = data.hours.reduce(
    (best, h) => (h.count > best.count ? h : best),
    data.hours[0] ?? { hour: data.from, count: 0, amount: 0 },
  );
  const desc =
    total === 0
      ? 'No payments in the last 7 days.'
      : `${total} payments in the last 7 days; the busiest hour, ${peak.hour.slice(0, 13)}:00 UTC, had ${peak.count}.`;
  return markup`
    <figure>
      <svg role="img" aria-labelledby="pay-title pay-desc" viewBox="0 0 ${WIDTH} ${HEIGHT}" class="chart">
        <title id="pay-title">Payments per hour, last 7 days</title>
        <desc id="pay-desc">${e(desc)}</desc>
        <line x1="0" y1="${HEIGHT - 14}" x2="${WIDTH}" y2="${HEIGHT - 14}" class="c-axis"/>
        ${paymentBars(data)}
        <text x="0" y="${HEIGHT - 2}" class="c-label">${e(data.from.slice(0, 10))}</text>
        <text x="${WIDTH}" y="${HEIGHT - 2}" text-anchor="end" class="c-label">now</text>
      </svg>
    </figure>
    ${paymentsPerDayTable(data)}`;
}

/** A day's money on the Balance page (D52): what came in, what went out, and the difference, in minor units. */
export interface DayTotals {
  day: string;
  payments: number;
  refunds: number;
  net: number;
}

const DAY_HEIGHT = 140;
const DAY_BASE = DAY_HEIGHT - 16;

/** One day's pair of bars (payments up in green, refunds up in red) and its net as a dark tick. */
function dayBars(d: DayTotals, i: number, slot: number, max: number): string {
  const scale = (n: number) => Math.round(((DAY_BASE - 8) * Math.max(0, n)) / max);
  const width = Math.max(1, slot / 2 - 1).toFixed(2);
  const x = i * slot;
  const bar = (value: number, offset: number, cls: string) =>
    value === 0
      ? ''
      : `<rect x="${(x + offset).toFixed(2)}" y="${DAY_BASE - scale(value)}" width="${width}" height="${Math.max(1, scale(value))}" class="${cls}"/>`;
  const tick =
    d.net > 0
      ? `<rect x="${x.toFixed(2)}" y="${DAY_BASE - scale(d.net)}" width="${(slot - 1).toFixed(2)}" height="2" class="c-net"/>`
      : '';
  return bar(d.payments, 0, 'c-ok') + bar(d.refunds, slot / 2, 'c-bad') + tick;
}

/**
 * The Balance page's chart (D52): per UTC day, payments and refunds side by side and the net as a tick, with a
 * description and a table of the numbers (formatted in the balance's currency) for anyone not reading bars.
 */
export function dailyBalanceChart(days: readonly DayTotals[], money: (minor: number) => string): string {
  if (days.length === 0) return '<p>No money has moved yet.</p>';
  const max = Math.max(1, ...days.map((d) => Math.max(d.payments, d.refunds)));
  const slot = WIDTH / days.length;
  const totals = days.reduce((t, d) => ({ payments: t.payments + d.payments, refunds: t.refunds + d.refunds }), {
    payments: 0,
    refunds: 0,
  });
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const desc =
    `From ${first} to ${last} (UTC): payments ${money(totals.payments)}, refunds ${money(totals.refunds)}, ` +
    `net ${money(totals.payments - totals.refunds)}.`;
  // The table lists the days money moved: a month of zero rows would bury them.
  const rows = [...days]
    .reverse()
    .filter((d) => d.payments !== 0 || d.refunds !== 0)
    .map((d) =>
      row(e(d.day), [
        [e(money(d.payments)), 'num'],
        [e(money(d.refunds)), 'num'],
        [e(money(d.net)), 'num'],
      ]),
    )
    .join('');
  return markup`
    <figure>
      <svg role="img" aria-labelledby="day-title day-desc" viewBox="0 0 ${WIDTH} ${DAY_HEIGHT}" class="chart">
        <title id="day-title">Payments (green), refunds (red) and net (dark line) per day</title>
        <desc id="day-desc">${e(desc)}</desc>
        <line x1="0" y1="${DAY_BASE}" x2="${WIDTH}" y2="${DAY_BASE}" class="c-axis"/>
        ${days.map((d, i) => dayBars(d, i, slot, max)).join('')}
        <text x="0" y="${DAY_HEIGHT - 2}" class="c-label">${e(first)}</text>
        <text x="${WIDTH}" y="${DAY_HEIGHT - 2}" text-anchor="end" class="c-label">${e(last)}</text>
      </svg>
    </figure>
    ${scrollTable({
      caption: 'Money per day (UTC), newest first',
      columns: ['Day', ['Payments', 'num'], ['Refunds', 'num'], ['Net', 'num']],
      rows,
      empty: 'No money moved in these days.',
      card: false,
    })}`;
}
