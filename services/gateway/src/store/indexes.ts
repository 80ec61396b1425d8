import type { IndexDefinition } from '@checkout/mongo';

export const COLLECTIONS = {
  organizations: 'organizations',
  apiKeys: 'api_keys',
  checkoutSettings: 'checkout_settings',
  idempotencyKeys: 'idempotency_keys',
} as const;

export const GATEWAY_INDEXES: readonly IndexDefinition[] = [
  { collection: COLLECTIONS.apiKeys, name: 'keyId', key: { keyId: 1 }, unique: true, servedBy: 'OrganizationsStore.revokeKey' },
  { collection: COLLECTIONS.apiKeys, name: 'organizationId_createdAt', key: { organizationId: 1, createdAt: -1 }, servedBy: 'OrganizationsStore.listKeys' },
  // Uniqueness of an Idempotency-Key per API key is the _id (a hash of both): the insert decides (D42).
  { collection: COLLECTIONS.idempotencyKeys, name: 'expiresAt', key: { expiresAt: 1 }, servedBy: 'IdempotencyStore.deleteExpired (the local engine applies no TTL index)' },
];
