import { escapeHtml as e } from '@checkout/html';

// The dashboard's own formats (D47): times in one zone for every reader, links that keep the current filters.

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
