/**
 * Minor units as an amount of `currency`. Without a locale, integer arithmetic in one fixed form ($1,234.05;
 * −$0.50; EUR 3.00). With one, written the locale's way by Intl.NumberFormat (1.234,05 $ in de, US$ 1.234,05 in
 * pt-BR), fed the exact decimal as a string so no float rounds it; each locale's formatter is built once.
 */
export function formatAmount(cents: number, currency = 'USD', locale?: string): string {
  const sign = cents < 0 ? '−' : '';
  const abs = Math.abs(Math.trunc(cents));
  const decimal = `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  if (locale !== undefined) return formatterOf(locale, currency).format(`${sign ? '-' : ''}${decimal}` as `${number}`);
  const units = Math.floor(abs / 100).toLocaleString('en-US');
  const symbol = currency === 'USD' ? '$' : `${currency} `;
  return `${sign}${symbol}${units}.${String(abs % 100).padStart(2, '0')}`;
}

const FORMATTERS = new Map<string, Intl.NumberFormat>();

function formatterOf(locale: string, currency: string): Intl.NumberFormat {
  const key = `${locale} ${currency}`;
  let formatter = FORMATTERS.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, { style: 'currency', currency });
    FORMATTERS.set(key, formatter);
  }
  return formatter;
}
