import type { ScopedDocument } from '@checkout/mongo';
import type { EventType } from '@checkout/contracts';

/** One recorded event (D34). `_id` is the event id, so recording it twice is a duplicate-key error. */
export interface EventDocument extends ScopedDocument {
  _id: string;
  type: EventType;
  /** A checkout.session.* event's session; absent on order and refund events (D49). */
  sessionId?: string;
  /** The event's createdAt (body.createdAt), the list's sort key. */
  createdAt: Date;
  /** The webhook body exactly as sent, as a JSON string: keys inside (metadata, sessionData) may contain "." or "$". */
  body: string;
  /** Where its webhooks go; null when the session had none (D32). */
  callbackUrl: string | null;
  /** The delivery created with the event; derived once so a redelivered message re-creates the same one. */
  initialDeliveryId: string | null;
  recordedAt: Date;
}
