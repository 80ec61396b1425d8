import type { Pagination, PaginationWithoutTotal } from '@checkout/contracts';
import { escapeHtml as e, markup } from '@checkout/html';
import { query } from './html';

// The pieces the dashboard's pages are made of: a status badge, a notice, a pager, the filter forms' fields and
// the tables that scroll inside their own labelled region.

export const status = (value: string) => `<span class="status ${e(value)}">${e(value.replace(/_/g, ' '))}</span>`;

export function notice(message: string | undefined, kind: 'info' | 'error' = 'info'): string {
  return message ? `<p class="notice${kind === 'error' ? ' error' : ''}" role="status">${e(message)}</p>` : '';
}

/** Lists of orders and events come without a total (their owners skip the count); sessions' come with one. */
export function pager(
  pagination: Pagination | PaginationWithoutTotal,
  base: string,
  filters: Record<string, string | undefined>,
): string {
  const where =
    'total' in pagination
      ? `Page ${pagination.page} of ${Math.max(1, Math.ceil(pagination.total / pagination.limit))} ` +
        `(${pagination.total} in all)`
      : `Page ${pagination.page}`;
  const link = (page: number, rel: string, label: string) =>
    `<a href="${e(base + query({ ...filters, page }))}" rel="${rel}">${label}</a>`;
  const prev = pagination.page > 1 ? link(pagination.page - 1, 'prev', 'Previous page') : '';
  const next = pagination.hasMore ? link(pagination.page + 1, 'next', 'Next page') : '';
  return `<nav class="pager" aria-label="Pagination">${prev}<span>${where}</span>${next}</nav>`;
}

export function select(
  name: string,
  label: string,
  options: readonly string[],
  current: string | undefined,
  none = 'Any',
): string {
  const choices = options
    .map((o) => `<option value="${e(o)}"${o === current ? ' selected' : ''}>${e(o.replace(/_/g, ' '))}</option>`)
    .join('');
  return (
    `<div><label for="f-${name}">${e(label)}</label>` +
    `<select id="f-${name}" name="${name}"><option value="">${e(none)}</option>${choices}</select></div>`
  );
}

export function text(name: string, label: string, current: string | undefined, hint?: string): string {
  const placeholder = hint ? ` placeholder="${e(hint)}"` : '';
  return (
    `<div><label for="f-${name}">${e(label)}</label>` +
    `<input id="f-${name}" name="${name}" type="text" value="${e(current ?? '')}"${placeholder} autocomplete="off"></div>`
  );
}

export function timeInput(name: string, label: string, current: string | undefined): string {
  return (
    `<div><label for="f-${name}">${e(label)}</label>` +
    `<input id="f-${name}" name="${name}" type="datetime-local" step="1" value="${e(current ?? '')}"></div>`
  );
}

/** A column heading: its label, and its class (`num` right-aligns, `hide-narrow` leaves phones). */
export type Column = string | readonly [label: string, className: string];

/**
 * A table in a region of its own that scrolls sideways when the screen is narrower (labelled by its caption,
 * focusable so keys scroll it). `empty` is the one row shown when there are none; `after` follows the table (a
 * pager). `card: false` for a table inside a card already.
 */
export function scrollTable(table: {
  caption: string;
  columns: readonly Column[];
  rows: string;
  empty?: string;
  after?: string;
  card?: boolean;
}): string {
  const head = table.columns
    .map((c) => (typeof c === 'string' ? `<th scope="col">${c}</th>` : `<th scope="col" class="${c[1]}">${c[0]}</th>`))
    .join('');
  const rows =
    table.rows ||
    (table.empty === undefined ? '' : `<tr><td colspan="${table.columns.length}">${table.empty}</td></tr>`);
  const caption = e(table.caption);
  return (
    `<div class="${table.card === false ? '' : 'card '}scroll" role="region" tabindex="0" aria-label="${caption}">` +
    `<table><caption>${caption}</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>` +
    `${table.after ?? ''}</div>`
  );
}

/** A cell: its markup, or [markup, class] for one with a class (`num` right-aligns, `hide-narrow` leaves phones). */
export type Cell = string | readonly [html: string, className: string];

/** A table's row: its heading cell (what the row is about), then its cells; `attributes` go on the <tr>. */
export function row(heading: string, cells: readonly Cell[], attributes = ''): string {
  const tds = cells.map((c) => (typeof c === 'string' ? `<td>${c}</td>` : `<td class="${c[1]}">${c[0]}</td>`));
  return `<tr${attributes}><th scope="row">${heading}</th>${tds.join('')}</tr>`;
}

/** The filters of a list: a form that GETs the list again with the fields' values. */
export function filterSection(action: string, fields: readonly string[]): string {
  return markup`
    <section class="card" aria-labelledby="h-filter">
      <h2 id="h-filter">Filter</h2>
      <form method="get" action="${action}" class="filters">
        ${fields.join('')}
        <div><button type="submit">Apply filters</button></div>
      </form>
    </section>`;
}

/** The attempt's error when it says more than its status code does ("HTTP 500" after "HTTP 500" says nothing). */
export function extraError(attempt: { statusCode: number | null; error: string | null }): string | null {
  return attempt.error !== null && attempt.error !== `HTTP ${attempt.statusCode}` ? attempt.error : null;
}

/** What an attempt got: its status code, or no response. */
export const answerOf = (attempt: { statusCode: number | null }) =>
  attempt.statusCode === null ? 'no response' : `HTTP ${attempt.statusCode}`;
