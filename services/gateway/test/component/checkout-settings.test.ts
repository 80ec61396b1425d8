import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { AdminClient } from '@checkout/testing';
import { createLogger } from '@checkout/logger';
import { buildApp, type GatewayApp } from '../../src/app';
import { parseConfig } from '../../src/config';
import { gatewayOnlyEnvironment } from './harness';

// GET/PATCH /v0/checkout_settings on the gateway alone: the hosted page's brand and default locale, per
// organization and mode, with the admin API's view of the same settings.

let app: GatewayApp;
let gateway: string;
let admin: AdminClient;

beforeAll(async () => {
  const env = gatewayOnlyEnvironment('gwsettings');
  app = buildApp(
    parseConfig({ ...env.gateway, PORT: '0', ADMIN_PORT: '0' }),
    createLogger('gateway', { level: 'silent' }),
  );
  const { url, adminUrl } = await app.start();
  gateway = url;
  admin = new AdminClient(adminUrl, env.adminToken);
});
afterAll(async () => {
  await app?.stop();
});

async function settings(key: string, method: 'GET' | 'PATCH' = 'GET', body?: unknown) {
  const response = await request(`${gateway}/v0/checkout_settings`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, any> };
}

const NONE = { displayName: null, brandColor: null, logoUrl: null, defaultLocale: null };

describe('GET/PATCH /v0/checkout_settings', () => {
  it('When a merchant sets its brand, then it reads it back; an absent field stays, null clears; each mode is its own', async () => {
    const org = await admin.createOrganizationWithKeys('Settings Co');
    expect(await settings(org.testKey)).toEqual({ status: 200, body: { checkoutSettings: NONE } });

    const brand = {
      displayName: 'Café Brand',
      brandColor: '#0A0A23',
      logoUrl: 'https://cdn.example/logo.svg',
      defaultLocale: 'zh-Hans',
    };
    const set = await settings(org.testKey, 'PATCH', brand);
    expect(set).toEqual({ status: 200, body: { checkoutSettings: { ...brand, brandColor: '#0a0a23' } } });
    expect((await settings(org.testKey)).body.checkoutSettings).toEqual({ ...brand, brandColor: '#0a0a23' });

    const changed = await settings(org.testKey, 'PATCH', { displayName: null, defaultLocale: 'auto' });
    expect(changed.body.checkoutSettings).toEqual({
      ...brand,
      brandColor: '#0a0a23',
      displayName: null,
      defaultLocale: 'auto',
    });
    expect((await settings(org.liveKey)).body.checkoutSettings).toEqual(NONE);

    // The operators' view shows the same brand beside the settings only they change.
    const { checkoutSettings } = await admin.call<{ checkoutSettings: Record<string, unknown> }>(
      'GET',
      `/organizations/${org.organizationId}/checkout-settings?mode=test`,
    );
    expect(checkoutSettings).toMatchObject({ logoUrl: brand.logoUrl, displayName: null, webhookSigning: false });
  });

  it('When a value breaks a rule, then 400 INVALID_REQUEST and nothing changes', async () => {
    const org = await admin.createOrganizationWithKeys('Settings Rules Co');
    for (const body of [
      { logoUrl: 'http://cdn.example/logo.png' },
      { logoUrl: 'javascript:alert(1)' },
      { logoUrl: 'data:image/png;base64,AAAA' },
      { logoUrl: `https://cdn.example/${'a'.repeat(2048)}` },
      { brandColor: 'red' },
      { brandColor: '#abc' },
      { displayName: 'x'.repeat(81) },
      { defaultLocale: 'en-US' },
      { webhookSigning: true },
    ]) {
      const answer = await settings(org.testKey, 'PATCH', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.code, JSON.stringify(body)).toBe('INVALID_REQUEST');
    }
    expect((await settings(org.testKey)).body.checkoutSettings).toEqual(NONE);
  });

  it('When no key or a wrong one is sent, then 401 and nothing is shown', async () => {
    expect((await settings('sk_test_wrong')).status).toBe(401);
    const response = await request(`${gateway}/v0/checkout_settings`);
    expect(response.statusCode).toBe(401);
    await response.body.dump();
  });
});
