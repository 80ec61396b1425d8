import { describe, expect, it } from 'vitest';
import type { WebhookEndpointDocument } from '../store/webhook-endpoint.document';
import { signingSecretsOf } from './rules/webhook-body';
import { exceedsHostLimit, newSigningSecret, patchedEndpoint, rotatedEndpoint } from './webhook-endpoints';

const NOW = new Date('2026-11-26T10:00:00.000Z');
const LATER = new Date('2026-11-26T11:00:00.000Z');
const endpoint: WebhookEndpointDocument = {
  _id: 'we_test_a',
  organizationId: 'org_1',
  mode: 'test',
  slot: 0,
  url: 'https://merchant.example/hooks',
  enabledEvents: ['*'],
  description: 'Fulfilment',
  metadata: [{ k: 'team', v: 'ops' }],
  secret: 'whsec_b2xk',
  previousSecret: null,
  disabled: null,
  failingSince: null,
  createdAt: NOW,
  updatedAt: NOW,
  revision: 1,
};

describe('webhook endpoint rules (D50)', () => {
  it('When a PATCH changes nothing, then there is nothing to write (D36: updatedAt stays)', () => {
    expect(patchedEndpoint(endpoint, {}, LATER)).toBeNull();
    expect(patchedEndpoint(endpoint, { url: endpoint.url, enabledEvents: ['*'], disabled: false }, LATER)).toBeNull();
  });

  it('When a PATCH gives fields, then they replace the stored ones, "" removes the description, and updatedAt moves', () => {
    expect(
      patchedEndpoint(endpoint, { url: 'https://merchant.example/v2', description: '', metadata: {} }, LATER),
    ).toEqual({
      ...(({ description: _description, ...rest }) => rest)(endpoint),
      url: 'https://merchant.example/v2',
      metadata: [],
      updatedAt: LATER,
    });
  });

  it('When disabled: true and then false, then it is disabled as requested, and enabled again with its run of failures forgotten', () => {
    const disabled = patchedEndpoint(endpoint, { disabled: true }, LATER) as WebhookEndpointDocument;
    expect(disabled.disabled).toEqual({ reason: 'requested', message: expect.any(String), at: LATER });
    // Disabling a disabled endpoint keeps its first reason (an automatic one included).
    expect(patchedEndpoint(disabled, { disabled: true }, NOW)).toBeNull();
    const failing = { ...disabled, failingSince: NOW };
    expect(patchedEndpoint(failing, { disabled: false }, LATER)).toMatchObject({ disabled: null, failingSince: null });
  });

  it('When the secret is rotated, then the new one signs first and the old one beside it for 24 hours, not longer', () => {
    const rotated = rotatedEndpoint(endpoint, 'whsec_bmV3', NOW);
    expect(signingSecretsOf(rotated, LATER)).toEqual(['whsec_bmV3', 'whsec_b2xk']);
    expect(signingSecretsOf(rotated, new Date(NOW.getTime() + 24 * 3_600_000))).toEqual(['whsec_bmV3']);
    // A second rotation drops the first secret: only the one it replaces keeps signing.
    const again = rotatedEndpoint(rotated, 'whsec_dGhpcmQ=', LATER);
    expect(signingSecretsOf(again, LATER)).toEqual(['whsec_dGhpcmQ=', 'whsec_bmV3']);
  });

  it('When a secret is made, then it is whsec_ and 24 random bytes, like the organization secrets (D35)', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(newSigningSecret()).not.toBe(secret);
  });
});

describe('distinct destination hosts per organization and mode', () => {
  const others = ['https://a.example/1', 'https://a.example:8443/2', 'http://B.example./3'];

  it('When a URL names a host already named (another path, port, scheme, case or a trailing dot), then it costs nothing', () => {
    expect(exceedsHostLimit(others, 'https://b.example/4', 2)).toBe(false);
    expect(exceedsHostLimit(others, 'https://a.example:9000/5', 2)).toBe(false);
  });

  it('When a URL names one host more than the limit allows, then it exceeds it; one within the limit does not', () => {
    expect(exceedsHostLimit(others, 'https://c.example/', 2)).toBe(true);
    expect(exceedsHostLimit(others, 'https://c.example/', 3)).toBe(false);
    expect(exceedsHostLimit([], 'https://c.example/', 1)).toBe(false);
  });
});
