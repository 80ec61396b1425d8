import { describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-policy';
import { endpointUrlProblem } from './endpoint-url';

// An endpoint's URL at registration (D50): live mode is https only (deliveries carry customers' details), and an
// IP literal D33 refuses is refused here rather than at every delivery.

describe('endpointUrlProblem', () => {
  const strict = new AddressPolicy([], ['34.118.224.0/20']);
  const local = new AddressPolicy(['127.0.0.0/8']);

  it.each([
    'http://169.254.169.254/latest/',
    'https://169.254.169.254/latest/',
    'http://2852039166/',
    'http://0xa9fea9fe/',
    'https://127.0.0.1:8443/hooks',
    'https://10.0.0.5/hooks',
    'https://[::1]/hooks',
    'https://[::ffff:192.168.1.1]/hooks',
    'https://[fd00:ec2::254]/',
    'https://34.118.224.10/hooks',
  ])('When the URL names an internal or denied address (%s), then it is refused in both modes', (url) => {
    for (const mode of ['test', 'live'] as const)
      expect(endpointUrlProblem(url, mode, strict), `${mode} ${url}`).toMatch(/internal address/);
  });

  it('When a live URL is http, then it is refused; a test URL may be http', () => {
    expect(endpointUrlProblem('http://example.com/hooks', 'live', strict)).toMatch(/https in live mode/);
    expect(endpointUrlProblem('http://93.184.215.14/hooks', 'live', strict)).toMatch(/https in live mode/);
    expect(endpointUrlProblem('http://example.com/hooks', 'test', strict)).toBeNull();
    expect(endpointUrlProblem('https://example.com/hooks', 'live', strict)).toBeNull();
    expect(endpointUrlProblem('https://93.184.215.14/hooks', 'live', strict)).toBeNull();
  });

  it('When the operators allowed a local network (development and tests), then its http receivers register in both modes', () => {
    expect(endpointUrlProblem('http://127.0.0.1:4000/hooks', 'live', local)).toBeNull();
    expect(endpointUrlProblem('http://127.0.0.1:4000/hooks', 'test', local)).toBeNull();
    // The allowance is for that network's addresses only, never a name or the rest of the internet.
    expect(endpointUrlProblem('http://localhost:4000/hooks', 'live', local)).toMatch(/https in live mode/);
    expect(endpointUrlProblem('http://169.254.169.254/', 'live', local)).toMatch(/internal address/);
  });

  it('When the host is a name, then it is left to delivery, where the address connected to is checked (D33)', () => {
    expect(endpointUrlProblem('https://metadata.internal.example/', 'live', strict)).toBeNull();
  });
});
