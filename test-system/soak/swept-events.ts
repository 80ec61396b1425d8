import { SWEPT_HEADER, drainTopic, type KafkaClient } from '@checkout/kafka';
import type { LedgerRow } from './ledger-types';

// Every write publishes the events it records at once; the outbox relay's sweep is for what a crash or an outage
// left behind (docs/webhooks.md, "How fast an event arrives"). The sweep marks what it publishes (SWEPT_HEADER,
// with when the event was written), so after the run the ledger can tell a late event a disruption explains from
// one a path left to the sweep.

/** A span of the run in which events may be left to the sweep: an outage, a SIGKILL, a broker's restart. */
export interface Disruption {
  what: string;
  start: number;
  end: number;
}

/**
 * How long before a disruption an event may have been written and still be left behind by it: the request that
 * wrote it was in flight, or its publish was (a send waits out the broker's retries).
 */
export const LEFT_BEHIND_MS = 10_000;

export const SWEPT_OUTSIDE = 'events published by the sweep that no crash or outage left behind';
export const SWEPT_INSIDE = 'events published by the sweep after a crash or an outage';
export const SWEPT_PREVIOUS_RELEASE = 'events published by the sweep while a replica of the previous release ran';

/** When each event the sweep published on `topics` was written (epoch ms), read from the topics' beginnings. */
export async function sweptEvents(
  kafka: KafkaClient,
  topics: readonly string[],
  groupPrefix: string,
): Promise<number[]> {
  const writtenAt: number[] = [];
  // Side by side: each read waits for its group's join (the release-day rollout's reads took 21 s one after another,
  // 5 s together). A topic two groups consume is read once: read twice, its swept events were counted twice.
  await Promise.all(
    [...new Set(topics)].map((topic) =>
      drainTopic({
        kafka,
        topic,
        groupId: `${groupPrefix}.swept-events.${topic}`,
        commit: false,
        timeoutMs: 60_000,
        handle: async (message) => {
          const value = message.headers[SWEPT_HEADER];
          if (value !== undefined) writtenAt.push(Number(value));
        },
      }),
    ),
  );
  return writtenAt;
}

/**
 * The ledger's rows: swept events outside every disruption (a check) and, for context, inside one. With `checkedFrom`
 * (a mixed-version run: when the release's last replica exited), only events written from then on count so: the
 * release before this one left a payment's public events to the sweep by design, so what was written while any of
 * its replicas ran is a row of its own, counted and not checked.
 */
export function sweptEventRows(
  writtenAt: readonly number[],
  disruptions: readonly Disruption[],
  options: { checkedFrom?: number } = {},
): { rows: LedgerRow[]; examples: string[] } {
  const checkedFrom = options.checkedFrom ?? Number.NEGATIVE_INFINITY;
  const explained = (at: number) => disruptions.some((d) => at >= d.start - LEFT_BEHIND_MS && at <= d.end);
  const checked = writtenAt.filter((at) => at >= checkedFrom);
  const outside = checked.filter((at) => !explained(at));
  return {
    rows: [
      { label: SWEPT_OUTSIDE, value: outside.length, check: true },
      { label: SWEPT_INSIDE, value: checked.length - outside.length, check: false },
      ...(options.checkedFrom === undefined
        ? []
        : [{ label: SWEPT_PREVIOUS_RELEASE, value: writtenAt.length - checked.length, check: false }]),
    ],
    examples: outside.slice(0, 3).map((at) => `${SWEPT_OUTSIDE}: an event written at ${new Date(at).toISOString()}`),
  };
}
