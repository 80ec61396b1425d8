import type { Consumer } from 'kafkajs';
import type { Logger } from 'pino';
import type { KafkaClient } from './client';
import { mendFetchRetries } from './fetch-retries';
import { kafkajsGroupsOf } from './kafkajs';
import { superviseConsumer, type RunningConsumer } from './kafkajs-accommodations';
import type { DeadLetter, MessageContext, ParseResult } from './messages';

/** What every consumer runner takes: the group, its topics, how a message is parsed and handled. */
export interface ConsumerOptions<T> {
  kafka: KafkaClient;
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  /** Turns the raw JSON into a typed message; a failure is poison and goes to the dead-letter topic. */
  parse: (raw: unknown) => ParseResult<T>;
  handle: (message: T, context: MessageContext) => Promise<void>;
  logger: Logger;
  deadLetter?: DeadLetter;
  partitionsConsumedConcurrently?: number;
  /** Called when a crashed consumer has been replaced (see superviseConsumer). */
  onRestart?: () => void;
  /**
   * Called for each fetched message as it is handed over, with its topic and how long ago its producer sent it (the
   * record's timestamp): the Kafka side of an event's way, acknowledgement wait, fetch and any pause of the member.
   */
  onReceived?: (topic: string, ageMs: number) => void;
  /** How long one handler call may take before it counts as failed and the message is tried again (default 60 s). */
  handlerDeadlineMs?: number;
}

/** What a consumer reports of itself (its restarts, its messages' ages): registerConsumerMetrics' hooksFor. */
export type ConsumerHooks = Required<Pick<ConsumerOptions<unknown>, 'onRestart' | 'onReceived'>>;

/**
 * Group membership and retry settings every consumer of ours uses: a dead member is noticed within 15 s,
 * and a consumer keeps retrying a broker outage forever rather than giving up and stopping.
 */
export const CONSUMER_GROUP_SETTINGS = {
  sessionTimeout: 15_000,
  // A member learns that its group is rebalancing only from a heartbeat's answer; every 200 ms (with
  // GROUP_FETCH_MAX_WAIT_MS between fetches) keeps a rolling deploy's rebalances short.
  heartbeatInterval: 200,
  rebalanceTimeout: 20_000,
  retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: Number.MAX_SAFE_INTEGER },
} as const;

/**
 * How long one fetch of a group member may wait at the broker for new messages. kafkajs heartbeats, and so
 * learns that its group is rebalancing, only between fetches, and a member that learns it stops its fetchers (one
 * per broker) before it joins again, each waiting for its parked fetch: with kafkajs' default of 5 s, every member
 * joining or leaving (each step of a rolling deploy) left the group's partitions without an owner for 3-6.5 s. At
 * 500 ms a dispatcher replica's replacement still delayed its events by 0.5-0.9 s (the rollout soak, over every
 * event); at 200 ms by 0.2-0.56 s (test-system/soak/README.md, "Over every event"); at 100 ms (with the heartbeat)
 * no rollout was faster. A fetch still returns at once when messages are there, so it costs only idle fetches: five
 * a second per member and broker.
 */
const GROUP_FETCH_MAX_WAIT_MS = 200;

/**
 * How old a group member's cluster metadata may be before its next fetch reads it again (kafkajs' default: 5 min).
 * A broker's controlled shutdown moves its partitions' leaders away at its start, but a member fetching from it is
 * not told: its fetches come back empty, not refused, until the broker closes the connection about 1.2 s later
 * (the broker-restart bench, kafkajs' debug log). Messages written meanwhile to the new leaders waited that long.
 * Read every second, a restart's messages were still consumed up to 0.8 s after their acknowledgement; every
 * 300 ms, within 0.1 s of it (bench/README.md, "Broker restarts"). A metadata request is a few hundred bytes
 * from one broker, about three a second per member.
 */
const GROUP_METADATA_MAX_AGE_MS = 300;

/**
 * What every consumer runner here starts with: a supervised member of `groupId` with our group settings (plus
 * the runner's own fetch settings), subscribed to `topics`; `run` starts it consuming, on every replacement too.
 */
export function superviseGroupMember(
  options: Pick<ConsumerOptions<unknown>, 'kafka' | 'groupId' | 'topics' | 'fromBeginning' | 'onRestart'>,
  log: Logger,
  fetchSettings: { maxWaitTimeInMs?: number; maxBytesPerPartition?: number },
  run: (consumer: Consumer, replace: () => void) => Promise<void>,
): Promise<RunningConsumer> {
  mendFetchRetries(CONSUMER_GROUP_SETTINGS.retry.initialRetryTime);
  return superviseConsumer({
    logger: log,
    ...(options.onRestart && { onRestart: options.onRestart }),
    create: () => {
      const consumer = kafkajsGroupsOf(options.kafka).consumer({
        groupId: options.groupId,
        ...CONSUMER_GROUP_SETTINGS,
        maxWaitTimeInMs: GROUP_FETCH_MAX_WAIT_MS,
        metadataMaxAge: GROUP_METADATA_MAX_AGE_MS,
        ...fetchSettings,
      });
      logMembership(consumer, log);
      return consumer;
    },
    begin: async (consumer, replace) => {
      for (const topic of options.topics)
        await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
      await run(consumer, replace);
    },
  });
}

/**
 * Every join of this member, at info, with how long it took and how many partitions it owns after it: beside
 * kafkajs' own warning when a rebalance begins ("The group is rebalancing, re-joining"), a rolling deploy's pauses
 * can be read per group and replica from the logs alone.
 */
export function logMembership(consumer: Consumer, log: Logger): void {
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
    log.info(
      {
        groupId: payload.groupId,
        memberId: payload.memberId,
        joinMs: payload.duration,
        isLeader: payload.isLeader,
        partitions: Object.values(payload.memberAssignment).reduce((sum, owned) => sum + owned.length, 0),
      },
      'joined group',
    ),
  );
}
