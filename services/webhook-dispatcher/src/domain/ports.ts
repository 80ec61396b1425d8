import type { Logger } from '@checkout/logger';
import type { SessionEventV1 } from '@checkout/contracts';
import type { TraceCarrier } from '@checkout/telemetry';
import type { DeliveriesStore } from '../store/deliveries.store';
import type { EventsStore } from '../store/events.store';
import type { WebhookEndpointsStore } from '../store/webhook-endpoints.store';
import type { DeliveryDocument } from '../store/delivery.document';
import type { SendResult } from '../clients/webhook-endpoints.client';
import type { SigningSecrets } from '../clients/gateway.client';
import type { DispatcherMetrics } from '../metrics';
import type { RetryMessage } from '../messaging/webhook-messages';
import type { HostScheduler } from './host-scheduler';
import type { EndpointDirectory } from './endpoint-directory';

// What the dispatcher's three parts (record.ts, attempts.ts, recovery.ts) share: the ports they are given and the
// event they are handed. Apart from dispatcher.ts, which wires the parts, so that no part imports the wiring.

export interface IncomingSessionEvent {
  /**
   * The validated envelope without its parsed body: the body is kept once, as rawBody. Batches wait in memory
   * while the scheduler is full (back-pressure), so every copy per event counts.
   */
  envelope: Omit<SessionEventV1, 'body'>;
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

export interface WebhookPublisherPort {
  publishRetry(message: RetryMessage): Promise<void>;
  publishDeadLetter(delivery: DeliveryDocument, failedAt: Date): Promise<void>;
}

/** One holder at a time per key, across replicas (libs/mongo Leases). */
export interface ExclusiveWork {
  tryAcquire(key: string, ttlMs: number): Promise<{ release(): Promise<void> } | null>;
}

export interface DispatcherDeps {
  events: EventsStore;
  /** Keeps recoveries (D44) to one at a time per organization and mode. */
  recoveries: ExclusiveWork;
  deliveries: DeliveriesStore;
  /** The webhook endpoints (D50), read fresh by requests (a redelivery, a recovery). */
  webhookEndpoints: WebhookEndpointsStore;
  /** The webhook endpoints as fan-out and attempts read them. */
  endpoints: EndpointDirectory;
  scheduler: HostScheduler;
  sender: WebhookSenderPort;
  hostKey: (url: string) => string;
  secrets: SigningSecrets;
  publisher: WebhookPublisherPort;
  metrics: DispatcherMetrics;
  logger: Logger;
  clock: () => Date;
  rng: () => number;
  /** Identifies this process in delivery holds. */
  owner: string;
  /** False in events-API-only pods: new deliveries are left to the consumer pods' recovery sweep. */
  dispatchLocally: boolean;
  policy: {
    delaysMs: readonly number[];
    maxAttempts: number;
    timeoutMs: number;
    /** How long a delivery held by this process (stored, queued or in flight) is left alone by the others. */
    claimTtlMs: number;
    /** Deliveries to webhook endpoints being made at once before the consumers wait (back-pressure). */
    fanOutBacklog: number;
    /** D50: how long every attempt to an endpoint must have failed before it is disabled. */
    endpointDisableAfterMs: number;
  };
}
