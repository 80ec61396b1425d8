import { indexesOn, shardedBy, type IndexDefinition, type ShardingDeclaration } from '@checkout/mongo';

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

const SWEEP = 'a retention sweep (the sweepers role): a deleteMany by age, every shard deletes its own';

/** How each collection would be sharded (libs/mongo's shardedBy; docs/operations.md, "Past one replica set"). */
export const GATEWAY_SHARDING: readonly ShardingDeclaration[] = [
  shardedBy(COLLECTIONS.organizations, {
    key: null,
    why: 'one document per merchant: thousands, never a shard of data; read by _id, cached (D43)',
    broadcasts: [],
  }),
  shardedBy(COLLECTIONS.apiKeys, {
    key: null,
    why: 'a few keys per merchant; read by _id when a key is not cached, so an unsharded collection answers from one shard and keyId stays unique',
  }),
  shardedBy(COLLECTIONS.checkoutSettings, {
    key: null,
    why: 'one document per merchant and mode, read through the cache (D43)',
  }),
  shardedBy(COLLECTIONS.idempotencyKeys, {
    key: { _id: 'hashed' },
    why: "one document per keyed write (D42) or unanswered refund; read and written by _id alone (a hash of the key and the API key's id), so a hashed _id spreads a hot merchant's writes over every shard and never grows monotonically",
    broadcasts: [{ command: 'delete', fields: ['expiresAt'], by: 'IdempotencyStore.deleteExpired', why: SWEEP }],
  }),
  shardedBy(COLLECTIONS.dashboardLoginLinks, {
    key: { _id: 'hashed' },
    why: "found by _id (the hash of the link's token) before the tenant is known (D47)",
    broadcasts: [{ command: 'delete', fields: ['expiresAt'], by: 'DashboardStore.deleteExpired (links)', why: SWEEP }],
  }),
  shardedBy(COLLECTIONS.dashboardSessions, {
    key: { _id: 'hashed' },
    why: 'found by _id (the hash of the session cookie) on every dashboard page, before the tenant is known (D47)',
    broadcasts: [
      { command: 'delete', fields: ['expiresAt'], by: 'DashboardStore.deleteExpired (sessions)', why: SWEEP },
    ],
  }),
];
