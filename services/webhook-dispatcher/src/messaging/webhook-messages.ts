import {
  RetryMessage,
  TOPICS,
  topicName,
  WEBHOOK_RETRY_TIERS,
  type Mode,
  type WebhookRetryTier,
} from '@checkout/contracts';
import type { EventProducer } from '@checkout/kafka';
import type { DeliveryDocument } from '../store/delivery.document';

// The dead letters the dispatcher publishes (its retry messages are libs/contracts' RetryMessage). They carry ids
// and counters; the delivery document holds the truth.

/** What the dispatcher publishes on the dead-letter topic (deploy/scripts/replay-dead-letter.ts reads it). */
interface DeadLetterMessage {
  deliveryId: string;
  eventId: string;
  organizationId: string;
  mode: Mode;
  url: string;
  /** The webhook endpoint the delivery was for (D50); absent for a session's callback URL (and in older messages). */
  endpointId?: string;
  attempts: number;
  lastError: string | null;
  /** ISO 8601. */
  failedAt: string;
}

export function retryTopics(prefix: string): string[] {
  return WEBHOOK_RETRY_TIERS.map((tier) => topicName(prefix, TOPICS.webhookRetry(tier)));
}

function isRetryTier(value: number): value is WebhookRetryTier {
  return (WEBHOOK_RETRY_TIERS as readonly number[]).includes(value);
}

/** Publishes retry and dead-letter messages; keyed by delivery id. */
export class WebhookPublisher {
  readonly deadLetterTopic: string;

  constructor(
    private readonly producer: EventProducer,
    private readonly prefix: string,
  ) {
    this.deadLetterTopic = topicName(prefix, TOPICS.webhookDeadLetter);
  }

  /** After failed attempt `tier`, the retry for attempt tier + 1 waits on tier `tier`. */
  async publishRetry(message: RetryMessage): Promise<void> {
    const tier = message.attempt - 1;
    if (!isRetryTier(tier)) throw new RangeError(`no retry tier for attempt ${message.attempt}`);
    await this.producer.send([
      {
        topic: topicName(this.prefix, TOPICS.webhookRetry(tier)),
        key: message.deliveryId,
        value: JSON.stringify(RetryMessage.parse(message)),
      },
    ]);
  }

  async publishDeadLetter(delivery: DeliveryDocument, failedAt: Date): Promise<void> {
    const last = delivery.attempts[delivery.attempts.length - 1];
    const message: DeadLetterMessage = {
      deliveryId: delivery._id,
      eventId: delivery.eventId,
      organizationId: delivery.organizationId,
      mode: delivery.mode,
      url: delivery.url,
      ...(delivery.endpointId !== undefined && { endpointId: delivery.endpointId }),
      attempts: delivery.attemptCount,
      lastError: last?.error ?? null,
      failedAt: failedAt.toISOString(),
    };
    await this.producer.send([
      {
        topic: this.deadLetterTopic,
        key: delivery._id,
        value: JSON.stringify(message),
        headers: { 'x-failure-reason': 'webhook attempts exhausted', 'x-delivery-id': delivery._id },
      },
    ]);
  }
}
