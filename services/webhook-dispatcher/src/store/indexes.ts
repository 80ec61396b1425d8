import type { IndexDefinition } from '@checkout/mongo';

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
