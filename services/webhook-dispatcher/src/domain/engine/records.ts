import type { Scope } from '@checkout/contracts';
import type { DeliveryDocument } from '../../store/delivery.document';
import type { EventDocument } from '../../store/event.document';
import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';
import type { AttemptOutcome } from '../rules/attempt-outcome';

// The engine's ports to what it stores: the stores (store/*.store.ts) implement them, app.ts hands them over.

export type ClaimResult =
  { claimed: true; delivery: DeliveryDocument } | { claimed: false; reason: 'missing' | 'finished' | 'stale' | 'busy' };

/** The deliveries recovery and the sweep queue: what an attempt needs to be queued. */
export type RecoverableDelivery = Pick<
  DeliveryDocument,
  '_id' | 'url' | 'endpointId' | 'attemptCount' | 'organizationId' | 'mode' | 'eventId'
>;

/**
 * A delivery as the attempt path names it to the store: its id and its shard key (organizationId, mode, eventId:
 * docs/operations.md, "Shard keys"), so that each write about an attempt goes to one shard.
 */
export type DeliveryRef = Pick<DeliveryDocument, '_id' | 'organizationId' | 'mode' | 'eventId'>;

/** A page of failed deliveries (D44): changed at or after `since`, after `after` in (updatedAt, _id) order. */
export interface FailedPage {
  since: Date;
  after: Pick<DeliveryDocument, '_id' | 'updatedAt'> | undefined;
  limit: number;
  /** Only this webhook endpoint's (D50). */
  endpointId?: string | undefined;
}

/** The stored events, as the engine records and reads them (store/events.store.ts). */
export interface EventRecords {
  recordEvents(docs: readonly EventDocument[]): Promise<Map<string, { event: EventDocument; created: boolean }>>;
  getEvent(scope: Scope, id: string): Promise<EventDocument | null>;
  getEvents(scope: Scope, ids: readonly string[]): Promise<Map<string, EventDocument>>;
  listCreatedSince(scope: Scope, from: Date, after: EventDocument | undefined, limit: number): Promise<EventDocument[]>;
}

/** The stored deliveries, every state change one conditional write (store/deliveries.store.ts). */
export interface DeliveryRecords {
  insertDelivery(
    scope: Scope,
    doc: Omit<DeliveryDocument, 'organizationId' | 'mode'>,
  ): Promise<{ delivery: DeliveryDocument; created: boolean }>;
  insertDeliveries(docs: readonly DeliveryDocument[]): Promise<Set<string>>;
  releaseHolds(ids: readonly string[], owner: string, now: Date): Promise<void>;
  getForDispatch(id: string): Promise<DeliveryDocument | null>;
  claim(input: {
    delivery: DeliveryRef;
    attempt: number;
    owner: string;
    now: Date;
    holdMs: number;
  }): Promise<ClaimResult>;
  recordAttempt(delivery: DeliveryRef, outcome: AttemptOutcome, now: Date): Promise<DeliveryDocument | null>;
  recordAttempts(items: ReadonlyArray<{ delivery: DeliveryRef; outcome: AttemptOutcome; now: Date }>): Promise<number>;
  deferAttempt(delivery: DeliveryRef, attempt: number, until: Date, now: Date): Promise<void>;
  markDeadLettered(delivery: DeliveryRef, now: Date): Promise<void>;
  markRecovered(delivery: DeliveryRef, recoveredBy: string, now: Date): Promise<void>;
  succeededToEndpointSince(scope: Scope, endpointId: string, since: Date): Promise<boolean>;
  listUnrecoveredFailedSince(scope: Scope, page: FailedPage): Promise<DeliveryDocument[]>;
  findRecoverable(
    now: Date,
    limit: number,
    skip?: { lanes: readonly Scope[]; modes: readonly Scope['mode'][] },
  ): Promise<RecoverableDelivery[]>;
  findRecoverableOf(scope: Scope, now: Date, limit: number): Promise<RecoverableDelivery[]>;
  findDeadLetterPending(limit: number): Promise<DeliveryDocument[]>;
}

/** The stored webhook endpoints (D50), as fan-out, attempts and their run of failures read and write them. */
export interface EndpointRecords {
  get(scope: Scope, id: string): Promise<WebhookEndpointDocument | null>;
  ofScopes(scopes: readonly Scope[]): Promise<WebhookEndpointDocument[]>;
  moveFailingRun(scope: Scope, id: string, from: Date | null, to: Date): Promise<void>;
  disableFailing(
    scope: Scope,
    id: string,
    failingSince: Date,
    disabled: NonNullable<WebhookEndpointDocument['disabled']>,
  ): Promise<WebhookEndpointDocument | null>;
}

/** What one organization and mode made of its budgets (docs/webhooks.md, "Budgets"). */
export interface UsageCounts {
  events: number;
  deliveries: number;
  /** The events' and deliveries' bytes as written (their JSON size, close to their stored size). */
  bytes: number;
}

/** Counts to add to one organization and mode's UTC day. */
export interface UsageIncrement {
  scope: Scope;
  day: string;
  /** The day's UTC midnight: what the retention sweep ages it by. */
  dayStart: Date;
  counts: UsageCounts;
}

/** The budgets' counts, one document per organization, mode and UTC day (store/tenant-usage.store.ts). */
export interface UsageRecords {
  /** Every tenant's counts in one command. */
  add(increments: readonly UsageIncrement[]): Promise<void>;
  read(scope: Scope, day: string): Promise<UsageCounts>;
  /** The counts of one day's tenants of one mode that reached any of `atLeast`. */
  reaching(day: string, mode: Scope['mode'], atLeast: UsageCounts): Promise<UsageCounts[]>;
}
