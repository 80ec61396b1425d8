/**
 * Time left until `expiresAt`, as the page shows it: `h:mm:ss` from an hour up, `m:ss` below, `0:00` when past;
 * `digits` writes a number with at least `width` digits in the page's language. Self-contained: the page's script
 * runs this very function (poll-script.ts), with digits of the browser's Intl.
 */
export function formatTimeLeft(
  ms: number,
  digits: (n: number, width: 1 | 2) => string = (n, width) => String(n).padStart(width, '0'),
): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = digits(total % 60, 2);
  return h > 0 ? `${digits(h, 1)}:${digits(m, 2)}:${s}` : `${digits(m, 1)}:${s}`;
}
