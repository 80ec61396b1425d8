import type { Db } from '@checkout/mongo';
import { CONSUMER_GROUPS, TOPICS, topicName } from '@checkout/contracts';
import { consumerGroupLag, type KafkaClient } from '@checkout/kafka';
import { eventually } from '@checkout/testing';

// The soak's drain: after the load, every outbox empty, every terminal session's event recorded, no delivery
// pending, every consumer group caught up, and (from a release) every order migrated, before the ledger reads.

const DRAIN_DEADLINE_MS = 150_000;

/** Orders the orders.0001 migration has not reached (services/orders/src/store/migrations.ts). */
export const UNMIGRATED_ORDER = { revision: { $exists: false } };

/** A consumer group and the topic whose end it must reach. */
export interface ConsumedTopic {
  groupId: string;
  topic: string;
}

/** The groups the drain waits for; orders' ledger (D52) when the orders that runs last has it. */
export function consumedTopics(namePrefix: string, ledgerRuns: boolean): ConsumedTopic[] {
  const of = (group: string, topic: string) => ({
    groupId: topicName(namePrefix, group),
    topic: topicName(namePrefix, topic),
  });
  return [
    of(CONSUMER_GROUPS.sessionsOrderEvents, TOPICS.orderEvents),
    of(CONSUMER_GROUPS.dispatcherSessionEvents, TOPICS.sessionEvents),
    of(CONSUMER_GROUPS.dispatcherOrderPublicEvents, TOPICS.orderPublicEvents),
    // A rollout may end on an older release, whose orders have no ledger.
    ...(ledgerRuns ? [of(CONSUMER_GROUPS.ordersBalanceLines, TOPICS.orderEvents)] : []),
  ];
}

/** Each group's lag behind its topic's end, by group id. */
export async function consumerLag(
  kafka: KafkaClient,
  consumed: readonly ConsumedTopic[],
): Promise<Map<string, number>> {
  const lag = new Map<string, number>();
  for (const { groupId, topic } of consumed)
    lag.set(groupId, Number((await consumerGroupLag(kafka, groupId, [topic])).get(topic) ?? 0n));
  return lag;
}

/** Waits for the drain (up to DRAIN_DEADLINE_MS); logs how long it took, or what held it; true when it finished. */
export async function drain(input: {
  db: (name: string) => Db;
  lag: () => Promise<Map<string, number>>;
  fromRelease: boolean;
  ledgerRuns: boolean;
  log: (line: string) => void;
}): Promise<boolean> {
  const { db, fromRelease, ledgerRuns } = input;
  const drainStarted = Date.now();
  // Settled means settled three polls in a row: an event can still be on its way through Kafka when one poll
  // happens to see every count right.
  let settledPolls = 0;
  // What the last poll saw, for the log line of a drain that gives up: which of its conditions held it.
  let lastPoll = '';
  const drained = await eventually(
    async () => {
      const [ordersOutbox, sessionsOutbox, terminal, events, pending] = await Promise.all([
        db('orders').collection('orders').countDocuments({ outboxPending: true }),
        db('sessions').collection('sessions').countDocuments({ outboxPending: true }),
        db('sessions')
          .collection('sessions')
          .countDocuments({ status: { $in: ['completed', 'expired'] } }),
        db('webhooks').collection('events').countDocuments({}),
        db('webhooks').collection('deliveries').countDocuments({ status: 'pending' }),
      ]);
      const lagging = [...(await input.lag()).values()].some((lag) => lag > 0);
      // From a release, the new orders run their migration (orders.0001) last: the drain waits for it too.
      const unmigrated = fromRelease ? await db('orders').collection('orders').countDocuments(UNMIGRATED_ORDER) : 0;
      // D52: every line counted (a consumer killed between its insert and its count leaves them to the sweep),
      // and, from a release, the orders paid before the ledger backfilled (orders.0002).
      const uncounted = ledgerRuns ? await uncountedLedger(db('orders'), fromRelease) : 0;
      lastPoll =
        `orders outbox ${ordersOutbox}, sessions outbox ${sessionsOutbox}, events ${events} of ${terminal} ` +
        `terminal sessions, deliveries pending ${pending}, consumers lagging ${lagging}, unmigrated ${unmigrated}, ` +
        `ledger uncounted ${uncounted}`;
      settledPolls =
        ordersOutbox === 0 &&
        sessionsOutbox === 0 &&
        events >= terminal &&
        pending === 0 &&
        !lagging &&
        unmigrated === 0 &&
        uncounted === 0
          ? settledPolls + 1
          : 0;
      return settledPolls >= 3;
    },
    {
      deadlineMs: DRAIN_DEADLINE_MS,
      intervalMs: 1_000,
      description: `the drain (outboxes empty, events recorded, no delivery pending, consumers caught up${fromRelease ? ', orders migrated' : ''})`,
    },
  ).then(
    () => true,
    () => false,
  );
  input.log(
    `drain ${drained ? 'finished' : `gave up (last poll: ${lastPoll})`} after ` +
      `${((Date.now() - drainStarted) / 1000).toFixed(0)} s`,
  );
  return drained;
}

/**
 * D52: what the ledger still owes: lines queued to be counted, batches pending, and (from a release) orders that
 * received money before the ledger and that migration orders.0002 has not backfilled yet.
 */
async function uncountedLedger(orders: Db, fromRelease: boolean): Promise<number> {
  const [lines, batches, unbackfilled] = await Promise.all([
    orders.collection('balance_queue').countDocuments({}),
    orders.collection('balances').countDocuments({ 'pending.batch': { $exists: true } }),
    fromRelease
      ? orders.collection('orders').countDocuments({ 'amounts.paid': { $gt: 0 }, balanceLines: { $exists: false } })
      : 0,
  ]);
  return lines + batches + unbackfilled;
}
