import { describe, expect, it } from 'vitest';
import { generateLocalSecrets } from '@checkout/config';
import { parseConfig } from './config';

// The operators' listener's wrong-token limit (ADMIN_AUTH_FAILURES_PER_MINUTE) counts every peer unless a deployment
// names one: a default exemption of loopback would exempt every caller behind a service mesh's sidecar.

const base = {
  ...generateLocalSecrets().env.gateway,
  MONGODB_URL: 'mongodb://127.0.0.1:27017/',
  PUBLIC_BASE_URL: 'https://api.example.com',
  ORDERS_URL: 'http://orders:4002',
  SESSIONS_URL: 'http://sessions:4003',
  DISPATCHER_URL: 'http://webhook-dispatcher:4004',
};

describe('gateway config: the operator-token limit', () => {
  it('When ADMIN_AUTH_FAILURES_EXEMPT is not set, then no peer is exempt, loopback included', () => {
    expect(parseConfig(base).ADMIN_AUTH_FAILURES_EXEMPT).toEqual([]);
  });

  it('When a deployment names peers, then those are exempt', () => {
    expect(
      parseConfig({ ...base, ADMIN_AUTH_FAILURES_EXEMPT: '127.0.0.0/8,::1/128' }).ADMIN_AUTH_FAILURES_EXEMPT,
    ).toEqual(['127.0.0.0/8', '::1/128']);
  });
});
