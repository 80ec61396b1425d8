// The dashboard's templating kit (D47): everything that is not our own markup is escaped.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function e(value: string | number | boolean | null | undefined): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

/** Minor units as an amount of `currency`, integer arithmetic only ($1,234.05). */
export function money(cents: number, currency = 'USD'): string {
  const sign = cents < 0 ? '−' : '';
  const abs = Math.abs(Math.trunc(cents));
  const units = Math.floor(abs / 100).toLocaleString('en-US');
  const symbol = currency === 'USD' ? '$' : `${currency} `;
  return `${sign}${symbol}${units}.${String(abs % 100).padStart(2, '0')}`;
}

/** `2026-11-24T10:00:00.000Z` → `2026-11-24 10:00:00 UTC`: one unambiguous zone for every reader. */
function when(iso: string | Date): string {
  const text = typeof iso === 'string' ? iso : iso.toISOString();
  return `${text.slice(0, 10)} ${text.slice(11, 19)} UTC`;
}

export function timeTag(iso: string): string {
  return `<time datetime="${e(iso)}">${e(when(iso))}</time>`;
}

/** A query string from the non-empty values, for links that keep the current filters. */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== '') params.set(name, String(value));
  return params.size > 0 ? `?${params.toString()}` : '';
}
