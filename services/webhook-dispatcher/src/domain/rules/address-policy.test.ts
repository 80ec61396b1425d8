import { describe, expect, it } from 'vitest';
import { AddressPolicy, parseNetworks } from './address-policy';

describe('AddressPolicy (D33)', () => {
  const strict = new AddressPolicy([]);

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.3.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['fc00::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::a00:1', 'NAT64'],
    // IPv4-compatible IPv6 (::/96, deprecated) reaches the IPv4 address on many stacks. A URL's
    // [::169.254.169.254] is connected to as ::a9fe:a9fe (the WHATWG URL parser's form, and the socket's).
    ['::a9fe:a9fe', 'global unicast'],
    ['::7f00:1', 'global unicast'],
    ['::a00:1', 'global unicast'],
    // The dotted spelling, as ipaddr.js reads it (as IPv4-mapped), is refused by its IPv4 address.
    ['::169.254.169.254', 'cloud metadata'],
    ['::127.0.0.1', 'loopback'],
    // Anything else outside 2000::/3 (global unicast) that ipaddr.js does not name.
    ['4000::1', 'global unicast'],
  ])('When the target is %s, then it is refused as %s', (ip, label) => {
    const verdict = strict.check(ip);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(label);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])(
    'When the target %s is public, then it is allowed',
    (ip) => {
      expect(strict.check(ip)).toEqual({ allowed: true });
    },
  );

  it('When an internal network is allow-listed, then only addresses inside it are allowed', () => {
    const policy = new AddressPolicy(['127.0.0.1/32', '10.1.0.0/16', 'fd12::/16']);
    expect(policy.check('127.0.0.1').allowed).toBe(true);
    expect(policy.check('::ffff:127.0.0.1').allowed).toBe(true);
    expect(policy.check('127.0.0.2').allowed).toBe(false);
    expect(policy.check('10.1.200.3').allowed).toBe(true);
    expect(policy.check('10.2.0.1').allowed).toBe(false);
    expect(policy.check('fd12::5').allowed).toBe(true);
    expect(policy.check('169.254.169.254').allowed).toBe(false);
  });

  it('When the allow-list holds something that is not a CIDR, then parsing names it', () => {
    expect(() => parseNetworks(['127.0.0.1'])).toThrow(/127\.0\.0\.1/);
    expect(() => parseNetworks(['banana/8'])).toThrow(/banana/);
  });

  it('When the value is not an IP, then it is refused', () => {
    expect(strict.check('example.com').allowed).toBe(false);
  });

  it('When the operators deny extra networks (a cluster service range in public space), then addresses inside are refused, the rest of the public internet is not', () => {
    const policy = new AddressPolicy([], ['34.118.224.0/20', '2600:1900:4000::/44']);
    for (const ip of ['34.118.224.1', '34.118.239.254', '::ffff:34.118.230.7', '2600:1900:4000::1']) {
      const verdict = policy.check(ip);
      expect(verdict, ip).toEqual({ allowed: false, reason: expect.stringContaining('a network the operators deny') });
    }
    expect(policy.check('34.118.240.1')).toEqual({ allowed: true });
    expect(policy.check('8.8.8.8')).toEqual({ allowed: true });
    // Before the setting these were public unicast, so allowed: the ranges alone cannot know them.
    expect(strict.check('34.118.224.1')).toEqual({ allowed: true });
  });

  it('When a denied network overlaps an allowed one, then denied wins; explicitly allowed means allowed and not denied', () => {
    const policy = new AddressPolicy(['10.0.0.0/8'], ['10.1.0.0/16']);
    expect(policy.check('10.2.0.1').allowed).toBe(true);
    expect(policy.check('10.1.0.1').allowed).toBe(false);
    expect(policy.isExplicitlyAllowed('10.2.0.1')).toBe(true);
    expect(policy.isExplicitlyAllowed('10.1.0.1')).toBe(false);
    expect(policy.isExplicitlyAllowed('8.8.8.8')).toBe(false);
  });

  it('When the deny-list holds something that is not a CIDR, then the policy cannot be built', () => {
    expect(() => new AddressPolicy([], ['34.118.224.0'])).toThrow(/34\.118\.224\.0/);
  });
});
