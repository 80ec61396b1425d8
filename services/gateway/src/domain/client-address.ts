import { BlockList, isIP } from 'node:net';

/**
 * A list of addresses and CIDRs from a setting: the proxies in front of the gateway whose X-Forwarded-For is
 * believed (TRUSTED_PROXIES), the peers exempt from the operator-token limit (ADMIN_AUTH_FAILURES_EXEMPT). Throws
 * on an entry that is not an address or CIDR, so a typo stops start-up.
 */
export function parseNetworks(entries: readonly string[]): BlockList {
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

/**
 * Answers of `isInNetworks` by list and address. BlockList.check builds a SocketAddress from the string each time
 * (16 µs of a gateway request's CPU on the 2-core machine, its profile under the abuse bench), while a gateway meets
 * the same few peers (its ingress, its clients' addresses) request after request. A list from parseNetworks never
 * changes, so an answer holds; the addresses a list has seen are forgotten together past MEMO_SIZE, which bounds
 * what a caller writing new X-Forwarded-For values can make it hold.
 */
const memos = new WeakMap<BlockList, Map<string, boolean>>();
const MEMO_SIZE = 4096;

/** Whether `address` is in `networks` (a list from parseNetworks). */
export const isInNetworks = (networks: BlockList, address: string): boolean => {
  let memo = memos.get(networks);
  const known = memo?.get(address);
  if (known !== undefined) return known;
  const family = isIP(address);
  const answer = family !== 0 && networks.check(address, family === 6 ? 'ipv6' : 'ipv4');
  if (memo === undefined) memos.set(networks, (memo = new Map<string, boolean>()));
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(address, answer);
  return answer;
};
const isTrusted = isInNetworks;

/** `::ffff:10.0.0.1` as the IPv4 address it is, so one client is one key whichever stack accepted it. */
const normalize = (address: string): string => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/**
 * The TCP peer, and nothing a request says about itself: the client on the operators' listener, where no ingress
 * stands in front and every X-Forwarded-For is the caller's to write (a pod rotating it would get unlimited
 * operator-token guesses, or name 127.0.0.1 to lock out operators on kubectl port-forward).
 */
export function peerAddress(peer: string | undefined): string {
  return normalize(peer ?? 'unknown');
}

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
