import { randomBytes } from 'node:crypto';

/** A fresh nonce for one response's inline <style> (and <script>, where the page has one). */
export function newNonce(bytes = 16): string {
  return randomBytes(bytes).toString('base64');
}

export interface PagePolicy {
  nonce: string;
  /** The page runs its own inline script (with the nonce) and fetches from its own origin; otherwise no script. */
  script?: boolean;
  /** Origins besides our own where the page's forms may end up, redirects included (Chromium checks those too). */
  formTargets?: readonly string[];
  /**
   * Where images may come from: our origin or inline (the default), or any https origin (the hosted page's
   * merchant logo), and nothing else, so no image is ever fetched in the clear.
   */
  images?: 'own' | 'https';
}

/**
 * The headers of every page we render: a CSP that allows nothing but this response's nonce for its <style> (and
 * <script>), images from our origin or inline (or from https: only), forms to our origin (and `formTargets`), no
 * framing, no <base>; no referrer, no sniffing, no caching.
 */
export function pageHeaders(policy: PagePolicy): Record<string, string> {
  const { nonce, script = false, formTargets = [], images = 'own' } = policy;
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    ...(script ? [`script-src 'nonce-${nonce}'`, "connect-src 'self'"] : []),
    images === 'https' ? 'img-src https:' : "img-src 'self' data:",
    `form-action 'self'${formTargets.map((target) => ` ${target}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ];
  return {
    'Content-Security-Policy': csp.join('; '),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  };
}
