import type { PageLocale } from '@checkout/contracts';
import { formatAmount } from '@checkout/html';
import type { Catalog, PluralKey, TextKey } from './catalog';
import { CATALOGS } from './catalogs';
import { formatTimeLeft } from '../countdown';

/** Everything locale-dependent the hosted page writes: its words, and numbers, amounts and dates in its language. */
export interface PageText {
  locale: PageLocale;
  dir: 'ltr' | 'rtl';
  /** A catalog text with its {placeholders} filled; plain text, to be escaped where it goes into markup. */
  t: (key: TextKey, params?: Readonly<Record<string, string | number>>) => string;
  /** The form of a plural text for `count`, with {count} and the other placeholders filled. */
  plural: (key: PluralKey, count: number, params?: Readonly<Record<string, string | number>>) => string;
  /** Minor units of USD (D53: USD stays USD, written the locale's way). */
  amount: (cents: number) => string;
  number: (n: number) => string;
  /** A percentage given in percent (12.5 → 12.5 %, written the locale's way). */
  percent: (n: number) => string;
  /** An instant as a date and time in UTC, with the zone named. */
  dateTime: (iso: string) => string;
  /** The countdown's text for `ms` left (countdown.ts), in the locale's digits. */
  timeLeft: (ms: number) => string;
}

const RTL: ReadonlySet<PageLocale> = new Set<PageLocale>(['ar']);

function fill(text: string, params: Readonly<Record<string, string | number>> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

function pageTextFor(locale: PageLocale, catalog: Catalog): PageText {
  // Formatters are costly to build and cheap to use: each locale's are built once, when the service starts.
  const plurals = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  const clock = [1, 2].map(
    (width) => new Intl.NumberFormat(locale, { minimumIntegerDigits: width, useGrouping: false }),
  );
  const percents = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 });
  const dates = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
  return {
    locale,
    dir: RTL.has(locale) ? 'rtl' : 'ltr',
    t: (key, params) => fill(catalog[key], params),
    plural: (key, count, params) => {
      const forms = catalog[key];
      const form = forms[plurals.select(count)] ?? forms.other;
      return fill(form, { ...params, count: numbers.format(count) });
    },
    // Right to left, "US$" after the number would read "$US": the code keeps the amount one left-to-right run.
    amount: (cents) => formatAmount(cents, 'USD', locale, RTL.has(locale) ? 'code' : undefined),
    number: (n) => numbers.format(n),
    percent: (n) => percents.format(n / 100),
    dateTime: (iso) => dates.format(new Date(iso)),
    timeLeft: (ms) => formatTimeLeft(ms, (n, width) => (clock[width - 1] ?? numbers).format(n)),
  };
}

const PAGE_TEXTS = Object.fromEntries(
  Object.entries(CATALOGS).map(([locale, catalog]) => [locale, pageTextFor(locale as PageLocale, catalog)]),
) as Record<PageLocale, PageText>;

export function pageText(locale: PageLocale): PageText {
  return PAGE_TEXTS[locale];
}
