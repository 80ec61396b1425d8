import ipaddr from 'ipaddr.js';

// D33: webhooks never reach internal addresses unless the deployment allows them. The check is on the address
// actually connected to (see clients/webhook-endpoints.client.ts), so DNS rebinding cannot get around it.

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

const RANGE_LABELS: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  reserved: 'a reserved',
  benchmarking: 'a benchmarking',
  amt: 'an AMT',
  as112: 'an AS112',
  as112v6: 'an AS112',
  uniqueLocal: 'a unique-local',
  ipv4Mapped: 'an IPv4-mapped',
  rfc6145: 'an IPv4-translated',
  rfc6052: 'a NAT64',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
  orchid2: 'an ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'a reserved',
};

const CLOUD_METADATA = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200']);

/** 2000::/3: the only IPv6 addresses that are globally routed unicast (RFC 4291 §2.4, IANA's allocation). */
const GLOBAL_UNICAST_V6: Network = [ipaddr.parse('2000::'), 3];

/** Parses WEBHOOK_ALLOWED_NETWORKS or WEBHOOK_DENIED_NETWORKS; throws naming the entry that is not a CIDR. */
export function parseNetworks(cidrs: readonly string[]): Network[] {
  return cidrs.map((cidr) => {
    try {
      const [address, bits] = ipaddr.parseCIDR(cidr);
      return [
        normalise(address),
        address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? bits - 96 : bits,
      ] as Network;
    } catch {
      throw new Error(`"${cidr}" is not a CIDR such as 127.0.0.1/32 or fd00::/8`);
    }
  });
}

function normalise(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  // ::ffff:10.0.0.1 is 10.0.0.1 as far as the kernel is concerned.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    return (address as ipaddr.IPv6).toIPv4Address();
  return address;
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * D33's rule for one address. `allowedNetworks` (WEBHOOK_ALLOWED_NETWORKS, development and tests only) opens
 * internal ranges; `deniedNetworks` (WEBHOOK_DENIED_NETWORKS) closes public ones the ranges cannot know are the
 * cluster's (a Kubernetes service range in public address space, e.g. GKE's 34.118.224.0/20). Denied wins over
 * allowed, so an operator can allow a lab network and still deny a part of it.
 */
export class AddressPolicy {
  private readonly allowed: Network[];
  private readonly denied: Network[];

  constructor(allowedNetworks: readonly string[] = [], deniedNetworks: readonly string[] = []) {
    this.allowed = parseNetworks(allowedNetworks);
    this.denied = parseNetworks(deniedNetworks);
  }

  /** Decides whether a webhook may connect to this IP address (v4 or v6, zone ids ignored). */
  check(ip: string): AddressVerdict {
    const address = parseAddress(ip);
    if (!address) return { allowed: false, reason: `${ip} is not an IP address` };
    const text = address.toString();
    if (inAny(address, this.denied)) return { allowed: false, reason: `${text} is in a network the operators deny` };
    if (inAny(address, this.allowed)) return { allowed: true };
    const range = address.range();
    if (range === 'unicast') {
      if (CLOUD_METADATA.has(text)) return { allowed: false, reason: `${text} is a cloud metadata address` };
      // ipaddr.js calls every IPv6 address it has no name for "unicast", IPv4-compatible ones (::/96, e.g.
      // ::169.254.169.254) included; only global unicast may be reached.
      if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6[0], GLOBAL_UNICAST_V6[1])) {
        return { allowed: false, reason: `${text} is not a global unicast address` };
      }
      return { allowed: true };
    }
    const label = RANGE_LABELS[range] ?? 'an internal';
    return {
      allowed: false,
      reason: `${text} is ${label} address${CLOUD_METADATA.has(text) ? ' (cloud metadata)' : ''}`,
    };
  }

  /** Whether the operators opened this address on purpose (WEBHOOK_ALLOWED_NETWORKS), and did not deny it. */
  isExplicitlyAllowed(ip: string): boolean {
    const address = parseAddress(ip);
    return address !== undefined && !inAny(address, this.denied) && inAny(address, this.allowed);
  }
}

function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return normalise(ipaddr.parse(ip.replace(/%.*$/, '')));
  } catch {
    return undefined;
  }
}

function inAny(address: ipaddr.IPv4 | ipaddr.IPv6, networks: readonly Network[]): boolean {
  return networks.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}
