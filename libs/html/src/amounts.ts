/**
 * Minor units as an amount of `currency`. Without a locale, integer arithmetic in one fixed form ($1,234.05;
 * −$0.50; EUR 3.00). With one, written the locale's way by Intl.NumberFormat (1.234,05 $ in de, US$ 1.234,05 in
 * pt-BR), fed the exact decimal as a string so no float rounds it; each locale's formatter is built once. `code`
 * names the currency by its code (12.23 USD): in right-to-left text a symbol after Latin letters (US$) would be
 * moved to the other side of them by the bidirectional algorithm.
 */
export function formatAmount(cents: number, currency = 'USD', locale?: string, display?: 'code'): string {
  const sign = cents < 0 ? '−' : '';
  const abs = Math.abs(Math.trunc(cents));
  const decimal = `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  if (locale !== undefined)
    return formatterOf(locale, currency, display).format(`${sign ? '-' : ''}${decimal}` as `${number}`);
  const units = Math.floor(abs / 100).toLocaleString('en-US');
  const symbol = currency === 'USD' ? '$' : `${currency} `;
  return `${sign}${symbol}${units}.${String(abs % 100).padStart(2, '0')}`;
}

const FORMATTERS = new Map<string, Intl.NumberFormat>();

function formatterOf(locale: string, currency: string, display: 'code' | undefined): Intl.NumberFormat {
  const key = `${locale} ${currency} ${display}`;
  let formatter = FORMATTERS.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: display ?? 'symbol' });
    FORMATTERS.set(key, formatter);
  }
  return formatter;
}
