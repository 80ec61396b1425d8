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

/** How each collection would be sharded (libs/mongo's shardedBy; docs/operations.md, "Shard keys"). */
export const GATEWAY_SHARDING: readonly ShardingDeclaration[] = [
  shardedBy(COLLECTIONS.organizations, {
    key: null,
    why: 'one document per merchant (thousands at 100×: megabytes); read by _id once per AUTH_CACHE_MS (D43)',
  }),
  shardedBy(COLLECTIONS.apiKeys, {
    key: null,
    why:
      'a few per merchant; read by _id when a key is not cached, listed by merchant for operators: unsharded, ' +
      'so keyId stays unique and every read is on one shard',
  }),
  shardedBy(COLLECTIONS.checkoutSettings, {
    key: null,
    why: 'one document per merchant and mode, read through the cache (D43)',
  }),
  shardedBy(COLLECTIONS.idempotencyKeys, {
    key: { _id: 'hashed' },
    why:
      'one document per keyed write (D42) and per unanswered refund, kept a day: grows with the write rate, a hot ' +
      "merchant's half included; read and written by _id alone (a hash of the key and its API key's id), whose " +
      'hash spreads every merchant over every shard and never grows monotonically',
    broadcasts: [{ command: 'delete', fields: ['expiresAt'], by: 'IdempotencyStore.deleteExpired', why: SWEEP }],
  }),
  shardedBy(COLLECTIONS.dashboardLoginLinks, {
    key: { _id: 'hashed' },
    why: "one per login (D47), found by _id (the hash of the link's token) before the merchant is known",
    broadcasts: [{ command: 'delete', fields: ['expiresAt'], by: 'DashboardStore.deleteExpired (links)', why: SWEEP }],
  }),
  shardedBy(COLLECTIONS.dashboardSessions, {
    key: { _id: 'hashed' },
    why: 'one per login (D47), found by _id (the hash of its cookie) on every dashboard page, before the merchant is known',
    broadcasts: [
      { command: 'delete', fields: ['expiresAt'], by: 'DashboardStore.deleteExpired (sessions)', why: SWEEP },
    ],
  }),
];
