import { shardedBy, type IndexDefinition, type ShardingDeclaration } from '@checkout/mongo';

export const COLLECTIONS = {
  events: 'events',
  deliveries: 'deliveries',
  webhookEndpoints: 'webhook_endpoints',
  tenantUsage: 'tenant_usage',
} as const;

export const WEBHOOK_INDEXES: readonly IndexDefinition[] = [
  // Uniqueness of events is their _id (the event id): recording is an insert, a duplicate is a duplicate key.
  {
    collection: COLLECTIONS.events,
    name: 'org_mode_createdAt_id',
    key: { organizationId: 1, mode: 1, createdAt: -1, _id: -1 },
    servedBy:
      'events.store listEvents (newest first; ?createdAfter=&createdBefore=, D51), listCreatedSince (what an endpoint missed, D50)',
  },
  {
    collection: COLLECTIONS.events,
    name: 'org_mode_type_createdAt',
    key: { organizationId: 1, mode: 1, type: 1, createdAt: -1 },
    servedBy: 'events.store listEvents ?type=',
  },
  {
    collection: COLLECTIONS.events,
    name: 'org_mode_sessionId_createdAt',
    key: { organizationId: 1, mode: 1, sessionId: 1, createdAt: -1 },
    servedBy: 'events.store listEvents ?sessionId=',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_eventId_createdAt',
    key: { organizationId: 1, mode: 1, eventId: 1, createdAt: 1 },
    servedBy: 'deliveries.store listForEvent',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_status_updatedAt',
    key: { organizationId: 1, mode: 1, status: 1, updatedAt: 1 },
    servedBy:
      'deliveries.store listUnrecoveredFailedSince (POST /events/recover, D44); listRecentlyFailed (dashboard, D47)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_status_lockedUntil',
    key: { organizationId: 1, mode: 1, status: 1, lockedUntil: 1 },
    servedBy: 'deliveries.store findRecoverableOf (a lane taking back what it spilled)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_updatedAt',
    key: { organizationId: 1, mode: 1, updatedAt: 1 },
    servedBy: 'deliveries.store deliveryStatsSince (dashboard delivery chart, D47: its $match)',
  },
  // D51: events by the state of their deliveries, newest first (the event's createdAt, then its id): each index
  // starts with the fields its filter names, then the list's order, so one event's deliveries come together.
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_status_eventCreatedAt_eventId',
    key: { organizationId: 1, mode: 1, status: 1, eventCreatedAt: -1, eventId: -1 },
    servedBy: 'deliveries.store eventIdsWithDeliveries, countEventsWithDeliveries (GET /v0/events?deliveryStatus=)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_endpointId_eventCreatedAt_eventId',
    key: { organizationId: 1, mode: 1, endpointId: 1, eventCreatedAt: -1, eventId: -1 },
    servedBy:
      'deliveries.store eventIdsWithDeliveries, countEventsWithDeliveries (GET /v0/events?endpointId=); ' +
      'listForEndpoint (the dashboard page of one endpoint, D50)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_endpointId_status_eventCreatedAt_eventId',
    key: { organizationId: 1, mode: 1, endpointId: 1, status: 1, eventCreatedAt: -1, eventId: -1 },
    servedBy: 'deliveries.store eventIdsWithDeliveries, countEventsWithDeliveries (?endpointId=&deliveryStatus=, D51)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'org_mode_endpointId_status_updatedAt',
    key: { organizationId: 1, mode: 1, endpointId: 1, status: 1, updatedAt: 1 },
    servedBy:
      'deliveries.store listUnrecoveredFailedSince with an endpointId (POST /v0/events/recover, D50); ' +
      'succeededToEndpointSince (an endpoint disabled after days of failures, D50)',
  },
  // D50: at most 16 endpoints per organization and mode, each in a place of its own.
  {
    collection: COLLECTIONS.webhookEndpoints,
    name: 'org_mode_slot',
    key: { organizationId: 1, mode: 1, slot: 1 },
    unique: true,
    servedBy: 'webhook-endpoints.store insertInFreeSlot (the unique place arbitrates the 16)',
  },
  {
    collection: COLLECTIONS.webhookEndpoints,
    name: 'org_mode_createdAt_id',
    key: { organizationId: 1, mode: 1, createdAt: -1, _id: -1 },
    servedBy: 'webhook-endpoints.store list (newest first), ofScopes (fan-out), the places taken (insertInFreeSlot)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'status_lockedUntil',
    key: { status: 1, lockedUntil: 1 },
    servedBy: 'deliveries.store findRecoverable (recovery sweep)',
  },
  {
    collection: COLLECTIONS.events,
    name: 'createdAt',
    key: { createdAt: 1 },
    servedBy: 'retention sweep (domain/background-work.ts)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'createdAt',
    key: { createdAt: 1 },
    servedBy: 'retention sweep (domain/background-work.ts)',
  },
  // The budgets' counts (docs/webhooks.md, "Budgets"): a tenant's day is read and written by its _id.
  {
    collection: COLLECTIONS.tenantUsage,
    name: 'day_mode',
    key: { day: 1, mode: 1 },
    servedBy: 'tenant-usage.store reaching (webhook_tenants_near_budget)',
  },
  {
    collection: COLLECTIONS.tenantUsage,
    name: 'dayStart',
    key: { dayStart: 1 },
    servedBy: 'retention sweep (domain/background-work.ts)',
  },
  {
    collection: COLLECTIONS.deliveries,
    name: 'deadLetterPending',
    key: { deadLetterPending: 1 },
    servedBy: 'deliveries.store findDeadLetterPending (recovery sweep)',
  },
];

const ATTEMPTS =
  'the retry consumer (domain/engine/attempts.ts), off the request path: a retry message names its delivery by ' +
  'id alone (RetryMessage: deliveryId), so the read before a retry asks every shard (an _id index lookup each); ' +
  "the attempt's writes then name the delivery's shard key";
const RECOVERY = 'the recovery sweep, a singleton per round: pending deliveries nobody holds, across merchants';

/** How each collection would be sharded (libs/mongo's shardedBy; docs/operations.md, "Shard keys"). */
export const WEBHOOK_SHARDING: readonly ShardingDeclaration[] = [
  shardedBy(COLLECTIONS.events, {
    key: { organizationId: 1, mode: 1, _id: 1 },
    why:
      'one document per session, order, refund and report event (D49), kept 30 days (D34); read by id on one ' +
      "shard, listed and searched within a merchant's range; the ids are random, so a merchant with half the " +
      "events has its range split and spread; an event's id fixes its merchant, so a replayed event meets its " +
      'duplicate _id on the same shard (the insert decides, per shard)',
    broadcasts: [
      {
        command: 'find',
        fields: ['_id'],
        by: 'EventsStore.recordEvents (the stored events of duplicates)',
        why: 'a replayed batch, in the consumer: only when an insert met a duplicate',
      },
      {
        command: 'delete',
        fields: ['createdAt', 'mode'],
        by: 'retention sweep',
        why: "the retention sweep, by age, each mode's for its time (D34)",
      },
    ],
  }),
  shardedBy(COLLECTIONS.deliveries, {
    key: { organizationId: 1, mode: 1, eventId: 1 },
    why:
      "one document per event and endpoint (D50), the fastest-growing collection; an event's deliveries together " +
      "(GET /v0/events/:id reads them from one shard), a merchant's lists and D51 searches from its range; the " +
      "event ids are random, so a hot merchant's range splits; a delivery's id is derived from its event " +
      '(initialDeliveryId, endpointDeliveryId), so a replay meets its duplicate _id on the same shard',
    broadcasts: [
      { command: 'find', fields: ['_id'], by: 'DeliveriesStore.getForDispatch', why: ATTEMPTS },
      { command: 'find', fields: ['status', 'lockedUntil'], by: 'DeliveriesStore.findRecoverable', why: RECOVERY },
      {
        command: 'find',
        fields: ['status', 'lockedUntil', '$nor'],
        by: 'DeliveriesStore.findRecoverable (full lanes left out)',
        why: RECOVERY,
      },
      {
        command: 'update',
        fields: ['_id', 'status', 'attemptCount', 'lockOwner'],
        by: 'DeliveriesStore.releaseHolds',
        why: 'a stopping replica gives back the holds of what it had queued, in one updateMany by id',
      },
      { command: 'find', fields: ['deadLetterPending'], by: 'DeliveriesStore.findDeadLetterPending', why: RECOVERY },
      {
        command: 'delete',
        fields: ['createdAt', 'mode', 'status'],
        by: 'retention sweep',
        why: "the retention sweep, by age, each mode's for its time (D34)",
      },
    ],
  }),
  shardedBy(COLLECTIONS.tenantUsage, {
    key: { _id: 'hashed' },
    why:
      "one document per merchant, mode and day (the budgets' counts), incremented by every recorded batch and read " +
      'by its _id, which names the merchant, mode and day: hashed, so the increments of a merchant with half the ' +
      'traffic and of every other spread over the shards instead of one primary shard',
    broadcasts: [
      {
        command: 'find',
        fields: ['day', 'mode', '$or'],
        by: 'TenantUsageStore.reaching',
        why: 'the near-budget gauge, read by the metrics scrape across merchants, off the request path',
      },
      { command: 'delete', fields: ['dayStart'], by: 'retention sweep', why: 'the retention sweep, by age' },
    ],
  }),
  shardedBy(COLLECTIONS.webhookEndpoints, {
    key: null,
    why: 'at most 16 per merchant and mode (D50), read by fan-out for many merchants at once',
  }),
];
