import type { IndexDefinition } from '@checkout/mongo';

export const COLLECTIONS = {
  events: 'events',
  deliveries: 'deliveries',
} as const;

export const WEBHOOK_INDEXES: readonly IndexDefinition[] = [
  // Uniqueness of events is their _id (the event id): recording is an insert, a duplicate is a duplicate key.
  {
    collection: COLLECTIONS.events,
    name: 'org_mode_createdAt_id',
    key: { organizationId: 1, mode: 1, createdAt: -1, _id: -1 },
    servedBy: 'events.store listEvents (newest first)',
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
  {
    collection: COLLECTIONS.deliveries,
    name: 'deadLetterPending',
    key: { deadLetterPending: 1 },
    servedBy: 'deliveries.store findDeadLetterPending (recovery sweep)',
  },
];
