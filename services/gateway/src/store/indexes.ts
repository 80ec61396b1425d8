import type { IndexDefinition } from '@checkout/mongo';

export const COLLECTIONS = {
  organizations: 'organizations',
  apiKeys: 'api_keys',
  checkoutSettings: 'checkout_settings',
  idempotencyKeys: 'idempotency_keys',
  dashboardLoginLinks: 'dashboard_login_links',
  dashboardSessions: 'dashboard_sessions',
} as const;

export const GATEWAY_INDEXES: readonly IndexDefinition[] = [
  {
    collection: COLLECTIONS.apiKeys,
    name: 'keyId',
    key: { keyId: 1 },
    unique: true,
    servedBy: 'OrganizationsStore.revokeKey',
  },
  {
    collection: COLLECTIONS.apiKeys,
    name: 'organizationId_createdAt',
    key: { organizationId: 1, createdAt: -1 },
    servedBy: 'OrganizationsStore.listKeys',
  },
  // Uniqueness of an Idempotency-Key per API key is the _id (a hash of both): the insert decides (D42).
  {
    collection: COLLECTIONS.idempotencyKeys,
    name: 'expiresAt',
    key: { expiresAt: 1 },
    servedBy: 'IdempotencyStore.deleteExpired (the local engine applies no TTL index)',
  },
  // D47: a login link is consumed and a dashboard session found by _id (the hash of their token), tenant from
  // the document; these only serve the sweep that reclaims expired ones.
  {
    collection: COLLECTIONS.dashboardLoginLinks,
    name: 'expiresAt',
    key: { expiresAt: 1 },
    servedBy: 'DashboardStore.deleteExpired (links)',
  },
  {
    collection: COLLECTIONS.dashboardSessions,
    name: 'expiresAt',
    key: { expiresAt: 1 },
    servedBy: 'DashboardStore.deleteExpired (sessions)',
  },
];
