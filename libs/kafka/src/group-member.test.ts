import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Consumer } from 'kafkajs';
import { logMembership } from './group-member';

/** A kafkajs consumer as far as logMembership uses it: its GROUP_JOIN event. */
function joiningConsumer() {
  let listener: ((event: { payload: unknown }) => void) | undefined;
  const consumer = {
    events: { GROUP_JOIN: 'consumer.group_join' },
    on(event: string, fn: (event: { payload: unknown }) => void) {
      if (event === 'consumer.group_join') listener = fn;
      return () => {};
    },
  };
  return { consumer: consumer as unknown as Consumer, join: (payload: unknown) => listener?.({ payload }) };
}

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('logMembership', () => {
  it('logs each join at info with its duration and the partitions the member owns across its topics', () => {
    const { consumer, join } = joiningConsumer();
    const { logger, lines } = capturingLogger();
    logMembership(consumer, logger);

    join({
      groupId: 'p.dispatcher.session-events',
      memberId: 'webhook-dispatcher-1f2e',
      leaderId: 'webhook-dispatcher-1f2e',
      isLeader: true,
      duration: 57,
      groupProtocol: 'RoundRobinAssigner',
      memberAssignment: { 'p.sessions.events': [0, 2, 4], 'p.sessions.events.retry': [1] },
    });

    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'joined group',
        groupId: 'p.dispatcher.session-events',
        memberId: 'webhook-dispatcher-1f2e',
        joinMs: 57,
        isLeader: true,
        partitions: 4,
      }),
    ]);
  });

  it('counts no partitions for a member the group left without any (more members than partitions)', () => {
    const { consumer, join } = joiningConsumer();
    const { logger, lines } = capturingLogger();
    logMembership(consumer, logger);

    join({ groupId: 'g', memberId: 'm', leaderId: 'x', isLeader: false, duration: 3, memberAssignment: {} });

    expect(lines[0]).toMatchObject({ partitions: 0, isLeader: false });
  });
});
