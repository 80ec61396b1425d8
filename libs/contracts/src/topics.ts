// Topic names are facts (architecture: "Topics are named for facts"), keyed by the aggregate id so one
// session's events stay in order. Every producer and consumer takes names from here, through topicName(), so a
// test file can give itself a private prefix without any code knowing about tests.

/** D31: at most 5 attempts, so 4 retry tiers sit between the first attempt and the dead letter. */
export const WEBHOOK_MAX_ATTEMPTS = 5;
export const WEBHOOK_RETRY_TIERS = [1, 2, 3, 4] as const;
export type WebhookRetryTier = (typeof WEBHOOK_RETRY_TIERS)[number];

export const TOPICS = {
  /** SessionEventV1 (events.ts), key = sessionId. Produced by sessions' outbox relay. */
  sessionEvents: 'checkout.session.events',
  /** Order facts, key = orderId. Produced by orders (e.g. so sessions learns of a cancellation). */
  orderEvents: 'orders.events',
  /** OrderPublicEventMessage (events.ts): order.* and refund.* for merchants (D49), key = orderId; by orders. */
  orderPublicEvents: 'orders.public-events',
  /**
   * ReportPublicEventMessage (report-events.ts): report.* for merchants (D52), key = reportId; by orders. A topic of
   * its own: a dispatcher of an earlier release reads orders.public-events strictly (docs/books.md).
   */
  reportEvents: 'reports.public-events',
  /** Deliveries waiting for retry tier N (tier 1 holds those whose first attempt failed). Key = deliveryId. */
  webhookRetry: (tier: WebhookRetryTier): string => {
    if (!WEBHOOK_RETRY_TIERS.includes(tier)) throw new RangeError(`no webhook retry tier ${String(tier)}`);
    return `webhooks.retry.${tier}`;
  },
  /** Deliveries that ran out of attempts, kept for inspection. Key = deliveryId. */
  webhookDeadLetter: 'webhooks.dead-letter',
} as const;

/** Every topic the platform uses, for provisioning (deploy manifests, test setup). */
export const ALL_TOPICS: readonly string[] = [
  TOPICS.sessionEvents,
  TOPICS.orderEvents,
  TOPICS.orderPublicEvents,
  TOPICS.reportEvents,
  ...WEBHOOK_RETRY_TIERS.map((tier) => TOPICS.webhookRetry(tier)),
  TOPICS.webhookDeadLetter,
];

// Each group is one logical reader; splitting retry tiers from fresh events keeps a slow merchant's retries
// from delaying anyone's first attempt (no head-of-line blocking).
export const CONSUMER_GROUPS = {
  /** webhook-dispatcher: reads TOPICS.sessionEvents, records events, makes first attempts. */
  dispatcherSessionEvents: 'webhook-dispatcher.session-events',
  /** webhook-dispatcher: reads TOPICS.orderPublicEvents, records each public event once (D49). */
  dispatcherOrderPublicEvents: 'webhook-dispatcher.order-public-events',
  /** webhook-dispatcher: reads TOPICS.reportEvents, records each report event once and delivers it (D52). */
  dispatcherReportEvents: 'webhook-dispatcher.report-events',
  /** webhook-dispatcher: reads every TOPICS.webhookRetry(tier). */
  dispatcherRetries: 'webhook-dispatcher.retries',
  /** sessions: reads TOPICS.orderEvents to follow its orders (cancellation, D25). */
  sessionsOrderEvents: 'sessions.order-events',
  /** orders: reads TOPICS.orderEvents to record each money movement as one balance transaction (D52). */
  ordersBalanceLines: 'orders.balance-lines',
} as const;
export type ConsumerGroupId = (typeof CONSUMER_GROUPS)[keyof typeof CONSUMER_GROUPS];

// Kafka's rule for topic names; applied to group ids too so one helper serves both.
const KAFKA_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/**
 * `name` under an optional prefix (`<prefix>.<name>`), for topics and consumer group ids alike. An empty or
 * missing prefix returns the name unchanged, which is what production uses.
 */
export function topicName(prefix: string | undefined, name: string): string {
  const full = prefix ? `${prefix}.${name}` : name;
  if (!KAFKA_NAME.test(full) || full === '.' || full === '..') {
    throw new RangeError(`invalid Kafka topic or group name: ${JSON.stringify(full)}`);
  }
  return full;
}
