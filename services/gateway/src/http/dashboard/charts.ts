import type { DeliveryStatsResponse, PaymentsPerHourResponse } from '@checkout/contracts';
import { e } from './html';

// D47: charts are inline SVG drawn on the server (no script, no external library, allowed by the CSP as part of
// the document). Each has a <title> and <desc> that say what it shows, and a table beside it with the numbers,
// so a screen reader user, or anyone, can read the values rather than estimate bar lengths.

const percent = (n: number, of: number) => (of === 0 ? 0 : Math.round((n * 1000) / of) / 10);

export function deliveryHostsChart(stats: DeliveryStatsResponse): string {
  if (stats.hosts.length === 0) return '<p>No webhook attempts in the last 24 hours.</p>';
  const rowHeight = 28;
  const labelWidth = 180;
  const barWidth = 300;
  const height = stats.hosts.length * rowHeight + 10;
  const summary = stats.hosts
    .map(
      (h) =>
        `${h.host}: ${percent(h.succeeded, h.attempts)}% of ${h.attempts} attempts succeeded, p95 ${h.p95DurationMs} ms`,
    )
    .join('; ');
  const bars = stats.hosts
    .map((h, i) => {
      const y = i * rowHeight + 5;
      const rate = percent(h.succeeded, h.attempts);
      const width = Math.max(1, Math.round((barWidth * rate) / 100));
      const label = h.host.length > 24 ? `${h.host.slice(0, 23)}…` : h.host;
      return `<text x="0" y="${y + 17}" class="c-label">${e(label)}</text><rect x="${labelWidth}" y="${y + 4}" width="${barWidth}" height="16" class="c-track"/><rect x="${labelWidth}" y="${y + 4}" width="${width}" height="16" class="${rate >= 99 ? 'c-ok' : rate >= 90 ? 'c-warn' : 'c-bad'}"/><text x="${labelWidth + barWidth + 8}" y="${y + 17}" class="c-label">${rate}% · p95 ${h.p95DurationMs} ms</text>`;
    })
    .join('');
  const table = `<div class="scroll" role="region" tabindex="0" aria-label="Webhook attempts per callback host, last 24 hours"><table><caption>Webhook attempts per callback host, last 24 hours</caption><thead><tr><th scope="col">Host</th><th scope="col" class="num">Attempts</th><th scope="col" class="num">Succeeded</th><th scope="col" class="num">Success rate</th><th scope="col" class="num">p95 duration</th></tr></thead><tbody>${stats.hosts
    .map(
      (h) =>
        `<tr><th scope="row">${e(h.host)}</th><td class="num">${h.attempts}</td><td class="num">${h.succeeded}</td><td class="num">${percent(h.succeeded, h.attempts)}%</td><td class="num">${h.p95DurationMs} ms</td></tr>`,
    )
    .join('')}</tbody></table></div>`;
  return `<figure><svg role="img" aria-labelledby="hosts-title hosts-desc" viewBox="0 0 ${labelWidth + barWidth + 190} ${height}" class="chart"><title id="hosts-title">Success rate and p95 duration per callback host, last 24 hours</title><desc id="hosts-desc">${e(summary)}</desc>${bars}</svg></figure>${table}`;
}

export function paymentsPerHourChart(data: PaymentsPerHourResponse): string {
  const width = 672;
  const height = 120;
  const max = Math.max(1, ...data.hours.map((h) => h.count));
  const total = data.hours.reduce((n, h) => n + h.count, 0);
  const peak = data.hours.reduce(
    (best, h) => (h.count > best.count ? h : best),
    data.hours[0] ?? { hour: data.from, count: 0, amount: 0 },
  );
  const barWidth = width / Math.max(1, data.hours.length);
  const bars = data.hours
    .map((h, i) => {
      if (h.count === 0) return '';
      const barHeight = Math.max(1, Math.round(((height - 20) * h.count) / max));
      return `<rect x="${(i * barWidth).toFixed(2)}" y="${height - 14 - barHeight}" width="${Math.max(1, barWidth - 1).toFixed(2)}" height="${barHeight}" class="c-ok"/>`;
    })
    .join('');
  const days = new Map<string, { count: number; amount: number }>();
  for (const h of data.hours) {
    const day = h.hour.slice(0, 10);
    const entry = days.get(day) ?? { count: 0, amount: 0 };
    entry.count += h.count;
    entry.amount += h.amount;
    days.set(day, entry);
  }
  const desc =
    total === 0
      ? 'No payments in the last 7 days.'
      : `${total} payments in the last 7 days; the busiest hour, ${peak.hour.slice(0, 13)}:00 UTC, had ${peak.count}.`;
  const table = `<table><caption>Payments per day, last 7 days (UTC)</caption><thead><tr><th scope="col">Day</th><th scope="col" class="num">Payments</th></tr></thead><tbody>${[
    ...days,
  ]
    .map(([day, v]) => `<tr><th scope="row">${e(day)}</th><td class="num">${v.count}</td></tr>`)
    .join('')}</tbody></table>`;
  return `<figure><svg role="img" aria-labelledby="pay-title pay-desc" viewBox="0 0 ${width} ${height}" class="chart"><title id="pay-title">Payments per hour, last 7 days</title><desc id="pay-desc">${e(desc)}</desc><line x1="0" y1="${height - 14}" x2="${width}" y2="${height - 14}" class="c-axis"/>${bars}<text x="0" y="${height - 2}" class="c-label">${e(data.from.slice(0, 10))}</text><text x="${width}" y="${height - 2}" text-anchor="end" class="c-label">now</text></svg></figure>${table}`;
}
