import ipaddr from 'ipaddr.js';
import type { Mode } from '@checkout/contracts';
import type { AddressPolicy } from './address-policy';

/**
 * What registering a webhook endpoint's URL promises beyond its shape (D50, D33), as a pure rule:
 * - live mode is https only: live deliveries carry customers' emails, phones and addresses, which must not cross
 *   the network in clear. The one exception is an address the operators allowed (WEBHOOK_ALLOWED_NETWORKS, a
 *   development and test setting that production leaves empty), where local receivers speak plain http;
 * - a host that is an IP literal D33 refuses (loopback, private, link-local, cloud metadata, an extra denied
 *   network…) is refused here, in either mode, rather than accepted and failing at every delivery. WHATWG URL
 *   parsing has already turned decimal, hex and octal spellings (`http://2852039166/`) into dotted form.
 * A name is checked where it is resolved, at delivery (the address actually connected to: D33).
 * Returns why the URL is refused, or null.
 */
export function endpointUrlProblem(
  url: string,
  mode: Mode,
  policy: Pick<AddressPolicy, 'check' | 'isExplicitlyAllowed'>,
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = ipaddr.isValid(host);
  if (literal) {
    const verdict = policy.check(host);
    if (!verdict.allowed)
      return `url must not name an internal address (${verdict.reason}): webhooks are never delivered there`;
  }
  if (mode === 'live' && parsed.protocol !== 'https:' && !(literal && policy.isExplicitlyAllowed(host)))
    return 'url must be https in live mode: deliveries carry customer details';
  return null;
}
