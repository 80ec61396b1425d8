import { describe, expect, it } from 'vitest';
import { clientAddress, parseTrustedProxies } from './client-address';

describe('clientAddress (limits before authentication, behind an ingress)', () => {
  const behindIngress = parseTrustedProxies(['10.0.0.0/8', '::1/128']);
  const none = parseTrustedProxies([]);

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

  it.each(['10.0.0.0/33', 'bogus', '10.0.0.1/x'])('When TRUSTED_PROXIES holds %s, then it is refused', (entry) => {
    expect(() => parseTrustedProxies([entry])).toThrow();
  });
});
