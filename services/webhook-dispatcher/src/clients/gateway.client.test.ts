import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Scope } from '@checkout/contracts';
import { GatewaySettingsClient } from './gateway.client';

// D35: the signing secret comes from the gateway, cached; through a gateway outage the last secret read stays
// in use, so the webhooks of an organization already seen are still signed and sent. A scripted loopback
// "gateway" answers; the clock is the test's.

let server: Server;
let baseUrl: string;
let answer: { status: number; secret: string | null };
let calls = 0;
let now = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    calls += 1;
    res
      .writeHead(answer.status, { 'content-type': 'application/json' })
      .end(
        JSON.stringify(
          answer.status === 200 ? { webhookSigningSecret: answer.secret } : { code: 'SERVICE_UNAVAILABLE' },
        ),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  calls = 0;
  now = 1_000_000;
});

const scope = { organizationId: 'org_1', mode: 'test' as const };
const client = () =>
  new GatewaySettingsClient({
    baseUrl,
    internalToken: 'internal-token-0123456789',
    cacheMs: 30_000,
    timeoutMs: 2_000,
    clock: () => now,
  });
/** The client's answer `ms` later on its clock. */
const secretsAfter = (settings: GatewaySettingsClient, ms: number, of: Scope) => {
  now += ms;
  return settings.secretsFor(of);
};

describe('GatewaySettingsClient (D35)', () => {
  it('When the secret was read within the cache period, then the gateway is not asked again', async () => {
    answer = { status: 200, secret: 'whsec_one' };
    const settings = client();
    expect(await settings.secretsFor(scope)).toEqual(['whsec_one']);
    expect(await secretsAfter(settings, 29_000, scope)).toEqual(['whsec_one']);
    expect(calls).toBe(1);
    await settings.close();
  });

  it('When the gateway fails after the cache period, then the last secret read is used and the gateway is asked again only after a pause', async () => {
    answer = { status: 200, secret: 'whsec_one' };
    const settings = client();
    await settings.secretsFor(scope);
    answer = { status: 503, secret: null };
    expect(await secretsAfter(settings, 31_000, scope)).toEqual(['whsec_one']);
    const askedDuringOutage = calls;
    expect(askedDuringOutage).toBeGreaterThan(1);
    expect(await secretsAfter(settings, 1_000, scope)).toEqual(['whsec_one']);
    expect(calls).toBe(askedDuringOutage);
    // The gateway is back with a rotated secret: picked up on the next refresh.
    answer = { status: 200, secret: 'whsec_two' };
    expect(await secretsAfter(settings, 5_000, scope)).toEqual(['whsec_two']);
    await settings.close();
  });

  it('When the gateway fails and no secret was ever read, then the lookup fails (nothing is sent unsigned), and lookups during the pause fail at once without asking', async () => {
    answer = { status: 503, secret: null };
    const settings = client();
    const unseen = { organizationId: 'org_never_seen', mode: 'live' as const };
    await expect(settings.secretsFor(unseen)).rejects.toThrow(/503/);
    const askedOnce = calls;
    await expect(secretsAfter(settings, 4_000, unseen)).rejects.toThrow(/503/);
    expect(calls).toBe(askedOnce);
    answer = { status: 200, secret: 'whsec_late' };
    expect(await secretsAfter(settings, 1_001, unseen)).toEqual(['whsec_late']);
    await settings.close();
  });

  it('When a rotation is in its overlap, then every secret the gateway lists signs, current first', async () => {
    const rotating = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ webhookSigningSecret: 'whsec_new', webhookSigningSecrets: ['whsec_new', 'whsec_old'] }));
    });
    await new Promise<void>((resolve) => rotating.listen(0, '127.0.0.1', resolve));
    try {
      const settings = new GatewaySettingsClient({
        baseUrl: `http://127.0.0.1:${(rotating.address() as AddressInfo).port}`,
        internalToken: 'internal-token-0123456789',
        cacheMs: 30_000,
        timeoutMs: 2_000,
      });
      expect(await settings.secretsFor(scope)).toEqual(['whsec_new', 'whsec_old']);
      await settings.close();
    } finally {
      await new Promise((resolve) => rotating.close(resolve));
    }
  });
});
