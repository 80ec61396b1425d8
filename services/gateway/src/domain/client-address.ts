import { BlockList, isIP } from 'node:net';

/**
 * The proxies in front of the gateway (TRUSTED_PROXIES: the ingress controller, the load balancer), whose
 * X-Forwarded-For is believed. Throws on an entry that is not an address or CIDR, so a typo stops start-up.
 */
export function parseTrustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`"${entry}" is not an IP address or CIDR`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (!/^\d+$/.test(prefix) || bits > (family === 6 ? 128 : 32))
      throw new Error(`"${entry}" has an invalid prefix length`);
    list.addSubnet(address, bits, type);
  }
  return list;
}

const isTrusted = (trusted: BlockList, address: string): boolean => {
  const family = isIP(address);
  return family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
};

/** `::ffff:10.0.0.1` as the IPv4 address it is, so one client is one key whichever stack accepted it. */
const normalize = (address: string): string => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/**
 * The client a request comes from, for limits counted before authentication. The peer address,
 * unless the peer is a trusted proxy: then X-Forwarded-For is read from the right (each proxy appends the address
 * it received from) and the first hop that is not a trusted proxy is the client. Never the left-most entry: a
 * client writes whatever it likes there.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: BlockList): string {
  const direct = normalize(peer ?? 'unknown');
  if (!isTrusted(trusted, direct) || !forwardedFor) return direct;
  const hops = forwardedFor
    .split(',')
    .map((hop) => normalize(hop.trim()))
    .filter((hop) => hop !== '');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i] as string;
    if (!isTrusted(trusted, hop)) return isIP(hop) === 0 ? direct : hop;
  }
  return hops[0] ?? direct;
}
