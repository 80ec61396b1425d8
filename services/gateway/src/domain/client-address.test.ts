import { describe, expect, it } from 'vitest';
import { clientAddress, isInNetworks, parseNetworks } from './client-address';

describe('clientAddress (limits before authentication, behind an ingress)', () => {
  const behindIngress = parseNetworks(['10.0.0.0/8', '::1/128']);
  const none = parseNetworks([]);

  it('When no proxy is trusted, then the peer is the client, whatever X-Forwarded-For claims', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', none)).toBe('203.0.113.9');
  });

  it('When the peer is a trusted proxy, then the right-most untrusted hop of X-Forwarded-For is the client', () => {
    expect(clientAddress('10.1.2.3', '198.51.100.7', behindIngress)).toBe('198.51.100.7');
    // The client wrote a fake first entry; the ingress appended the address it really saw.
    expect(clientAddress('10.1.2.3', '1.2.3.4, 198.51.100.7', behindIngress)).toBe('198.51.100.7');
    // Two trusted proxies in a row.
    expect(clientAddress('10.1.2.3', '198.51.100.7, 10.9.9.9', behindIngress)).toBe('198.51.100.7');
  });

  it('When the peer is not a trusted proxy, then its X-Forwarded-For is ignored (a client cannot pick its own bucket)', () => {
    expect(clientAddress('198.51.100.7', '10.1.1.1', behindIngress)).toBe('198.51.100.7');
  });

  it('When an IPv4 client arrives on an IPv6 socket, then it is one client either way', () => {
    expect(clientAddress('::ffff:203.0.113.9', undefined, none)).toBe('203.0.113.9');
  });

  it('When a trusted proxy forwards garbage, then the proxy itself is the client', () => {
    expect(clientAddress('10.1.2.3', 'not-an-address', behindIngress)).toBe('10.1.2.3');
  });

  it('When the same and then thousands of new addresses are asked (the answers remembered, then forgotten), then every answer is the one the list gives', () => {
    for (let round = 0; round < 2; round += 1) {
      expect(isInNetworks(behindIngress, '10.1.2.3')).toBe(true);
      expect(isInNetworks(behindIngress, '198.51.100.7')).toBe(false);
    }
    for (let i = 0; i < 5_000; i += 1) {
      const address = `${i % 2 === 0 ? 10 : 11}.${(i >> 8) & 255}.${i & 255}.1`;
      expect(isInNetworks(behindIngress, address)).toBe(behindIngress.check(address, 'ipv4'));
      expect(isInNetworks(none, address)).toBe(false);
    }
    expect(isInNetworks(behindIngress, '10.1.2.3')).toBe(true);
  });

  it.each(['10.0.0.0/33', 'bogus', '10.0.0.1/x'])('When TRUSTED_PROXIES holds %s, then it is refused', (entry) => {
    expect(() => parseNetworks([entry])).toThrow();
  });
});
