import type { Logger } from '@checkout/logger';
import type { EventType, Mode, RetryMessage, Scope } from '@checkout/contracts';
import type { TraceCarrier } from '@checkout/telemetry';
import type { DeliveryDocument } from '../../store/delivery.document';
import type { DispatcherMetrics } from '../../metrics';
import type { SendResult } from '../rules/attempt-outcome';
import type { HostScheduler } from './host-scheduler';
import type { DeliveryRecords, EndpointRecords, EventRecords, UsageRecords } from './records';
import type { EndpointDirectory } from './endpoint-directory';

// What the engine's parts (record.ts, attempts.ts, recovery.ts) are given: the ports they own, which the stores, the
// sender and the publisher implement (app.ts wires them), and the event they are handed. Apart from dispatcher.ts,
// which wires the parts, so that no part imports the wiring.

/**
 * A consumed event, whichever topic brought it: a session's (D30) or an order's or refund's (D49). Recording it
 * (record.ts) is the one place an event becomes a stored public event.
 */
export interface IncomingEvent {
  /**
   * The validated envelope without its parsed body: the body is kept once, as rawBody. Batches wait in memory
   * while the scheduler is full (back-pressure), so every copy per event counts.
   */
  envelope: {
    eventId: string;
    organizationId: string;
    mode: Mode;
    type: EventType;
    /** A checkout.session.* event's session (the events API filters by it). */
    sessionId?: string;
    /**
     * Where its first delivery goes: the session's callback URL. null: recorded, not delivered (D32: a session without
     * one; D49: order and refund events, which a session's callback URL never receives).
     */
    callbackUrl: string | null;
  };
  /** The body's createdAt, validated with it. */
  createdAt: string;
  /** The webhook body as produced, unknown fields included. */
  rawBody: Record<string, unknown>;
  /** The consumer span's trace context: stored with the event's first delivery, so its attempts join the trace. */
  trace?: TraceCarrier | undefined;
}

export interface WebhookSenderPort {
  send(input: { url: string; headers: Record<string, string>; body: string }): Promise<SendResult>;
}

interface WebhookPublisherPort {
  publishRetry(message: RetryMessage): Promise<void>;
  publishDeadLetter(delivery: DeliveryDocument, failedAt: Date): Promise<void>;
}

/** An organization's signing secrets (D35: the gateway's checkout settings). */
export interface SigningSecrets {
  /** The secrets a delivery of this organization and mode is signed with; none: unsigned (D35). */
  secretsFor(scope: Scope): Promise<readonly string[]>;
}

/** One holder at a time per key, across replicas (libs/mongo Leases). */
export interface ExclusiveWork {
  tryAcquire(key: string, ttlMs: number): Promise<{ release(): Promise<void>; renew(): Promise<boolean> } | null>;
}

/** Where the engine keeps what it delivers. */
interface EngineStores {
  events: EventRecords;
  deliveries: DeliveryRecords;
  /** The webhook endpoints (D50), read fresh by requests (a redelivery, a recovery) and written by their health. */
  endpoints: EndpointRecords;
  /** The budgets' counts: what the inserts made, per organization, mode and UTC day. */
  usage: UsageRecords;
}

/** What leaves the process: the POST, its signing secrets, the retry and dead-letter messages. */
interface Outbound {
  sender: WebhookSenderPort;
  /** The destination's `host:port`, the scheduler's per-host key. */
  hostKey: (url: string) => string;
  /**
   * The `address:port` an attempt to `url` connects to: its name resolved (briefly cached, the same answer the
   * sender then connects to), or its IP literal. null when it resolves to nothing that may be reached: the attempt
   * fails as its send would, holding no address slot.
   */
  addressOf: (url: string) => Promise<string | null>;
  secrets: SigningSecrets;
  publisher: WebhookPublisherPort;
}

/** This process: who it is, its time and chance, what it reports. */
interface Local {
  /** Identifies this process in delivery holds. */
  owner: string;
  /** False in events-API-only pods: new deliveries are left to the consumer pods' recovery sweep. */
  dispatchLocally: boolean;
  clock: () => Date;
  rng: () => number;
  logger: Logger;
  metrics: DispatcherMetrics;
}

export interface DeliveryPolicy {
  delaysMs: readonly number[];
  maxAttempts: number;
  timeoutMs: number;
  /** How long a delivery held by this process (stored, queued or in flight) is left alone by the others. */
  claimTtlMs: number;
  /** Deliveries to webhook endpoints being made at once before the consumers wait (back-pressure). */
  fanOutBacklog: number;
  /** D50: how long every attempt to an endpoint must have failed before it is disabled. */
  endpointDisableAfterMs: number;
}

export interface DispatcherDeps {
  stores: EngineStores;
  /** The webhook endpoints as fan-out and attempts read them. */
  directory: EndpointDirectory;
  scheduler: HostScheduler;
  outbound: Outbound;
  local: Local;
  policy: DeliveryPolicy;
  /** Keeps recoveries (D44) to one at a time per organization and mode. */
  recoveries: ExclusiveWork;
  /** How long a recovery's lease lasts unless renewed (RECOVERY_LEASE_MS; shorter in tests). */
  recoveryLeaseMs?: number;
}
