// A tiny templating kit for the hosted page: escape everything that is not our own markup.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function escapeHtml(value: string | number | boolean | null | undefined): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

/** Formats minor units as US dollars with integer arithmetic ($1,234.05; −$0.50). */
export function formatUsd(cents: number): string {
  const sign = cents < 0 ? '−' : '';
  const abs = Math.abs(Math.trunc(cents));
  const dollars = Math.floor(abs / 100).toLocaleString('en-US');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}
