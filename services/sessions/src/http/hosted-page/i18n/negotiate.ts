import { SESSION_LOCALES, type PageLocale, type SessionLocale } from '@checkout/contracts';

// D53: a session's `auto` locale is the best match of the browser's Accept-Language among the page's locales.

const FALLBACK: PageLocale = 'en';

/** Language tags (lower case) that mean one of the page's locales although they are not its tag. */
// Chinese is written in simplified characters in mainland China and Singapore (zh-TW, zh-HK: traditional ones,
// which the page does not have).
const ALIASES: ReadonlyMap<string, PageLocale> = new Map([
  ['zh', 'zh-Hans'],
  ['zh-cn', 'zh-Hans'],
  ['zh-sg', 'zh-Hans'],
]);

const BY_TAG: ReadonlyMap<string, PageLocale> = new Map(SESSION_LOCALES.map((l) => [l.toLowerCase(), l]));
/** The locale of a primary language with one variety on the page: `de` for de-AT, `pt-BR` for pt-PT; not `zh`. */
const BY_LANGUAGE: ReadonlyMap<string, PageLocale> = new Map([
  ...SESSION_LOCALES.filter((l) => !l.includes('-')).map((l) => [l, l] as const),
  ['pt', 'pt-BR'],
]);

/**
 * One of the page's locales for a language tag, or none: the tag or an alias of it; the tag with its last subtags
 * dropped (zh-Hans-CN → zh-Hans); its primary language.
 */
function localeOfTag(tag: string): PageLocale | undefined {
  const subtags = tag.toLowerCase().split('-');
  const whole = subtags.join('-');
  const exact = BY_TAG.get(whole) ?? ALIASES.get(whole);
  if (exact) return exact;
  for (let n = subtags.length - 1; n > 1; n--) {
    const shorter = BY_TAG.get(subtags.slice(0, n).join('-'));
    if (shorter) return shorter;
  }
  return BY_LANGUAGE.get(subtags[0] ?? '');
}

/**
 * The page's locale for an Accept-Language header (RFC 9110 §12.5.4): the supported tag of highest quality, the
 * earlier one on a tie; `q=0` means "not this one"; `*` or nothing supported falls back to English.
 */
export function negotiateLocale(acceptLanguage: string | undefined): PageLocale {
  if (!acceptLanguage) return FALLBACK;
  let best: { locale: PageLocale; q: number } | undefined;
  for (const part of acceptLanguage.slice(0, 1024).split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => /^q=/i.test(p));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0 || q > 1) continue;
    const locale = localeOfTag(tag.trim());
    if (locale && (!best || q > best.q)) best = { locale, q };
  }
  return best?.locale ?? FALLBACK;
}

/** The locale a session's page is shown in, and whether the browser's Accept-Language chose it (so: Vary). */
export function pageLocaleOf(
  sessionLocale: SessionLocale,
  acceptLanguage: string | undefined,
): { locale: PageLocale; negotiated: boolean } {
  return sessionLocale === 'auto'
    ? { locale: negotiateLocale(acceptLanguage), negotiated: true }
    : { locale: sessionLocale, negotiated: false };
}
