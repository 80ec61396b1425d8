import type { ScopedDocument } from '@checkout/mongo';
import type { DeliveryStatus, EventType } from '@checkout/contracts';
import type { TraceCarrier } from '@checkout/telemetry';

export interface AttemptRecord {
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** At most WEBHOOK_RESPONSE_SNIPPET_BYTES of the response body; stored, not shown by the events API. */
  responseSnippet: string | null;
}

/**
 * One delivery of one event to one URL (the database holds the truth, queue messages carry ids).
 *
 * Crash safety: `lockedUntil` is the time until which some process has promised to act on the delivery — an
 * attempt in flight or queued in memory (lockOwner = that process), or a retry message waiting in a retry
 * tier (lockOwner null, lockedUntil = nextAttemptAt + claim TTL). The recovery sweep re-dispatches every
 * pending delivery whose lockedUntil has passed, so a kill -9 at any point loses nothing.
 */
export interface DeliveryDocument extends ScopedDocument {
  _id: string;
  eventId: string;
  eventType: EventType;
  /**
   * The event's createdAt, copied at insert: the delivery-log filters (D51) list events by delivery state, newest
   * first, from the deliveries alone. Absent on deliveries stored before those filters, which they do not find
   * (such deliveries age out with WEBHOOK_EVENTS_RETENTION_MS).
   */
  eventCreatedAt?: Date;
  /** The webhook endpoint it is for (D50); absent for a delivery to a session's callback URL (D30). */
  endpointId?: string;
  url: string;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  /** attempts.length, kept explicit: the next attempt is attemptCount + 1. */
  attemptCount: number;
  /** When the next attempt is due; null once succeeded or failed. */
  nextAttemptAt: Date | null;
  lockedUntil: Date;
  lockOwner: string | null;
  /** True from the moment a delivery fails until its dead-letter message is on Kafka (outbox-style). */
  deadLetterPending: boolean;
  /** The delivery that `POST /events/recover` made of this failed one (D44); a failed delivery is recovered once. */
  recoveredBy?: string;
  /**
   * The trace of what caused the delivery (the consumed event's span, a redelivery request's), while tracing is
   * on: every attempt, first, retried or recovered, is a span in that trace (docs/operations.md, "Traces").
   */
  trace?: TraceCarrier;
  createdAt: Date;
  updatedAt: Date;
}
