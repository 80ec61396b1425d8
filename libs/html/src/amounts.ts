/** Minor units as an amount of `currency`, integer arithmetic only ($1,234.05; −$0.50; EUR 3.00). */
export function formatAmount(cents: number, currency = 'USD'): string {
  const sign = cents < 0 ? '−' : '';
  const abs = Math.abs(Math.trunc(cents));
  const units = Math.floor(abs / 100).toLocaleString('en-US');
  const symbol = currency === 'USD' ? '$' : `${currency} `;
  return `${sign}${symbol}${units}.${String(abs % 100).padStart(2, '0')}`;
}
