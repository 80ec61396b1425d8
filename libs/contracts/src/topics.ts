// Topic names are facts (architecture: "Topics are named for facts"), keyed by the aggregate id (TOPIC_KEYS) so
// one session's events stay in order. Every producer and consumer takes names from here, through topicName(), so a
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

/** The message field a topic is keyed by: the entity whose events must stay in order, never the merchant. */
export type TopicKeyField = 'sessionId' | 'orderId' | 'reportId' | 'deliveryId';

/** The create-topics job's setting that holds a topic's partition count (deploy/scripts/create-topics.ts). */
export type PartitionSetting = 'SESSION_EVENTS_PARTITIONS' | 'ORDER_EVENTS_PARTITIONS' | 'WEBHOOK_RETRY_PARTITIONS';

export interface TopicKeying {
  /**
   * Every message's key is this field of its value (the message fixtures show it for each shape); a poison message
   * parked on the dead letter keeps the key of the topic it came from.
   */
  key: TopicKeyField;
  /** What stays in order because of that key, and who relies on it (docs/operations.md, "Topics and partitions"). */
  inOrder: string;
  partitions: PartitionSetting;
}

const retryKeying: TopicKeying = {
  key: 'deliveryId',
  inOrder: 'nothing: one message per delivery and tier; the key only spreads deliveries over partitions',
  partitions: 'WEBHOOK_RETRY_PARTITIONS',
};

/**
 * Each topic's key, once. Kafka keeps order per partition, and a key's messages all go to one partition: a topic
 * keyed by merchant would put a merchant with most of the traffic on one partition, one consumer and one broker,
 * while the others idled. Every key here is the id of one order, session, report or delivery: random ids, so any
 * merchant's traffic spreads over every partition, and each entity's own events stay in the order written.
 * docs/operations.md's topic table is checked against this (test-system/policy/topic-keys.test.ts).
 */
export const TOPIC_KEYS: Readonly<Record<string, TopicKeying>> = {
  [TOPICS.sessionEvents]: {
    key: 'sessionId',
    inOrder: "one session's events (completed, expired) as written: its first attempts follow that order",
    partitions: 'SESSION_EVENTS_PARTITIONS',
  },
  [TOPICS.orderEvents]: {
    key: 'orderId',
    inOrder:
      "one order's changes by revision; sessions' copy and the ledger also accept any order (revision, derived ids)",
    partitions: 'ORDER_EVENTS_PARTITIONS',
  },
  [TOPICS.orderPublicEvents]: {
    key: 'orderId',
    inOrder: "one order's public events (created, paid, refund.*) recorded in the order written (D49)",
    partitions: 'ORDER_EVENTS_PARTITIONS',
  },
  [TOPICS.reportEvents]: {
    key: 'reportId',
    inOrder: "one report's events (D52); reports are few, the key spreads them",
    partitions: 'ORDER_EVENTS_PARTITIONS',
  },
  ...Object.fromEntries(WEBHOOK_RETRY_TIERS.map((tier) => [TOPICS.webhookRetry(tier), retryKeying])),
  [TOPICS.webhookDeadLetter]: retryKeying,
};

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
