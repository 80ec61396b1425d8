import type { RecordingClient } from './client';

// What a soak journey is and records: journeys.ts runs them, the ledger (ledger.ts) reads what they recorded.

export const RECEIVER_KINDS = ['healthy', 'slow', 'flapping', 'failing'] as const;
export type ReceiverKind = (typeof RECEIVER_KINDS)[number];

/** Journeys that make an order without a session; every other kind makes a checkout session. */
type OrderKind = 'order' | 'refund-cancelled';
export type SessionKind =
  | 'pay-full'
  | 'pay-partial'
  | 'decline-then-pay'
  | 'expire'
  | 'cancel'
  | 'live-processor'
  | 'refund'
  | 'refund-overpaid'
  | 'refund-live';
export type JourneyKind = OrderKind | SessionKind;

export interface Merchant {
  name: string;
  organizationId: string;
  testKey: string;
  liveKey: string;
}

type CreateResult = 'created' | 'duplicate-on-retry' | 'no-answer' | 'refused';

/**
 * One refund the merchant asked for (D48): its Idempotency-Key (the same key is the same refund), the answers every
 * request with that key got in the end ("201", "400 REFUND_FAILED", "503", "timeout", ...), and the refund id
 * answered with a 201.
 */
export interface RefundIntent {
  key: string;
  amount?: number;
  answers: string[];
  /** A request with this key got an unknown outcome (5xx, no answer) before its definite answer. */
  unknownFirst: boolean;
  refundIds: string[];
}

export interface Journey {
  n: number;
  kind: JourneyKind;
  merchant: number;
  mode: 'test' | 'live';
  externalId: string;
  /** Sessions only. */
  receiver?: ReceiverKind;
  created?: CreateResult;
  sessionId?: string;
  orderId?: string;
  /** Test-helper payments with outcome "succeeded" the merchant asked for: each may be applied at most once. */
  paymentIntents: number;
  /** Processor payment ids notified (live mode); each may be applied at most once, however often notified. */
  processorPaymentIds: string[];
  /** D48: every refund the merchant asked for, by Idempotency-Key. */
  refunds: RefundIntent[];
  /** Each step and its final outcome, e.g. "pay 200", for the report of anything unexpected. */
  steps: string[];
}

export interface JourneyOptions {
  client: RecordingClient;
  merchants: readonly Merchant[];
  callbackUrl: (kind: ReceiverKind) => string;
  processorSecret: string;
  /**
   * Signs refund notifications, beside processorSecret: a processor moving refunds to their own secret signs with
   * both, so an orders of the release before (the mixed-version soak) and today's each find theirs.
   */
  processorRefundSecret: string;
}

export type Items = { name: string; quantity: number; unitPrice: number }[];
