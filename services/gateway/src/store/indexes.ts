import { indexesOn, type IndexDefinition } from '@checkout/mongo';

export const COLLECTIONS = {
  organizations: 'organizations',
  apiKeys: 'api_keys',
  checkoutSettings: 'checkout_settings',
  idempotencyKeys: 'idempotency_keys',
  dashboardLoginLinks: 'dashboard_login_links',
  dashboardSessions: 'dashboard_sessions',
} as const;

export const GATEWAY_INDEXES: readonly IndexDefinition[] = [
  ...indexesOn(COLLECTIONS.apiKeys, {
    keyId: { key: { keyId: 1 }, unique: true, servedBy: 'OrganizationsStore.revokeKey' },
    organizationId_createdAt: { key: { organizationId: 1, createdAt: -1 }, servedBy: 'OrganizationsStore.listKeys' },
  }),
  ...indexesOn(COLLECTIONS.idempotencyKeys, {
    // Uniqueness of an Idempotency-Key per API key is the _id (a hash of both): the insert decides (D42).
    expiresAt: {
      key: { expiresAt: 1 },
      servedBy: 'IdempotencyStore.deleteExpired (the local engine applies no TTL index)',
    },
  }),
  ...indexesOn(COLLECTIONS.dashboardLoginLinks, {
    // D47: a login link is consumed and a dashboard session found by _id (the hash of their token), tenant from
    // the document; these only serve the sweep that reclaims expired ones.
    expiresAt: { key: { expiresAt: 1 }, servedBy: 'DashboardStore.deleteExpired (links)' },
  }),
  ...indexesOn(COLLECTIONS.dashboardSessions, {
    expiresAt: { key: { expiresAt: 1 }, servedBy: 'DashboardStore.deleteExpired (sessions)' },
  }),
];
