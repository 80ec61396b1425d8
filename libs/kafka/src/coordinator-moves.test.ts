// Drives kafkajs' own ConsumerGroup and OffsetManager with brokers that are plain objects: a group coordinator
// that moved answers NOT_COORDINATOR, as a broker does after a restart moved its partition of the offsets topic.
import { createRequire } from 'node:module';
import ConsumerGroup from 'kafkajs/src/consumer/consumerGroup.js';
import OffsetManager from 'kafkajs/src/consumer/offsetManager/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { coordinatorMayHaveMoved, mendCoordinatorMoves } from './coordinator-moves';

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require('kafkajs/src/protocol/error') as {
  createErrorFromCode: (code: number) => Error;
};

const NOT_COORDINATOR = 16;
const REBALANCE_IN_PROGRESS = 27;
const GROUP_LOAD_IN_PROGRESS = 14;

function broker(name: string, refusal?: number) {
  const answer = () => (refusal === undefined ? Promise.resolve({}) : Promise.reject(createErrorFromCode(refusal)));
  return { name, isConnected: () => true, offsetCommit: vi.fn(answer), heartbeat: vi.fn(answer) };
}

function clusterNaming(coordinator: ReturnType<typeof broker>) {
  return {
    findGroupCoordinator: vi.fn(() => Promise.resolve(coordinator)),
    refreshMetadata: vi.fn(() => Promise.resolve()),
    committedOffsets: () => ({}),
  };
}

const logger = { debug() {}, info() {}, warn() {}, error() {}, namespace: () => logger };
const instrumentationEmitter = { emit() {} };
const topics = [{ topic: 'orders', partitions: [{ partition: 0, offset: '5' }] }];

interface Manager {
  coordinator: unknown;
  commitOffsets(offsets: { topics: typeof topics }): Promise<void>;
}
interface Group {
  coordinator: unknown;
  memberId: string;
  generationId: number;
  offsetManager: Manager | null;
  heartbeat(options: { interval: number }): Promise<void>;
}

function offsetManager(cluster: object, coordinator: object): Manager {
  const Constructor = OffsetManager as unknown as new (options: object) => Manager;
  return new Constructor({
    cluster,
    coordinator,
    memberAssignment: { orders: [0] },
    topicConfigurations: {},
    instrumentationEmitter,
    groupId: 'dispatcher',
    generationId: 3,
    memberId: 'member-1',
  });
}

function consumerGroup(cluster: object, coordinator: object): Group {
  const Constructor = ConsumerGroup as unknown as new (options: object) => Group;
  const group = new Constructor({
    retry: {},
    cluster,
    groupId: 'dispatcher',
    topics: ['orders'],
    topicConfigurations: {},
    logger,
    instrumentationEmitter,
    assigners: [],
  });
  group.coordinator = coordinator;
  group.memberId = 'member-1';
  group.generationId = 3;
  return group;
}

mendCoordinatorMoves();
afterEach(() => {
  vi.useRealTimers();
});

describe('a group coordinator that moved', () => {
  it("takes the refused commit, so neither kafkajs' auto-commit joins again nor its retry goes back to the old one", async () => {
    const old = broker('old', NOT_COORDINATOR);
    const moved = broker('new');
    const manager = offsetManager(clusterNaming(moved), old);

    await manager.commitOffsets({ topics });
    await manager.commitOffsets({ topics });

    expect(old.offsetCommit).toHaveBeenCalledTimes(1);
    expect(moved.offsetCommit).toHaveBeenCalledTimes(2);
    expect(moved.offsetCommit).toHaveBeenCalledWith(
      expect.objectContaining({ groupId: 'dispatcher', memberId: 'member-1', groupGenerationId: 3, topics }),
    );
  });

  it('takes the heartbeat with the same member and generation, so the member does not join again', async () => {
    const old = broker('old', NOT_COORDINATOR);
    const moved = broker('new');
    const group = consumerGroup(clusterNaming(moved), old);
    group.offsetManager = offsetManager(clusterNaming(moved), old);

    await group.heartbeat({ interval: 0 });

    expect(moved.heartbeat).toHaveBeenCalledWith({ groupId: 'dispatcher', memberId: 'member-1', groupGenerationId: 3 });
    expect(group.coordinator).toBe(moved);
    // The member's next commit goes there too, without a refusal first.
    await group.offsetManager.commitOffsets({ topics });
    expect(old.offsetCommit).not.toHaveBeenCalled();
  });

  it("leaves the new coordinator's own refusal to kafkajs (a rebalance is joined as usual)", async () => {
    const group = consumerGroup(clusterNaming(broker('new', REBALANCE_IN_PROGRESS)), broker('old', NOT_COORDINATOR));

    await expect(group.heartbeat({ interval: 0 })).rejects.toMatchObject({ type: 'REBALANCE_IN_PROGRESS' });
  });

  it('waits for a coordinator the cluster names before that broker has taken the group', async () => {
    vi.useFakeTimers();
    const moved = broker('new');
    moved.heartbeat
      .mockRejectedValueOnce(createErrorFromCode(NOT_COORDINATOR))
      .mockRejectedValueOnce(createErrorFromCode(GROUP_LOAD_IN_PROGRESS));
    const group = consumerGroup(clusterNaming(moved), broker('old', NOT_COORDINATOR));

    const beat = group.heartbeat({ interval: 0 });
    await vi.advanceTimersByTimeAsync(300);

    await expect(beat).resolves.toBeUndefined();
    expect(moved.heartbeat).toHaveBeenCalledTimes(3);
  });

  it('sends a commit refused by a coordinator still loading the group again, instead of failing the fetch loop', async () => {
    vi.useFakeTimers();
    const loading = broker('loading');
    loading.offsetCommit.mockRejectedValueOnce(createErrorFromCode(GROUP_LOAD_IN_PROGRESS));
    const manager = offsetManager(clusterNaming(loading), loading);

    const commit = manager.commitOffsets({ topics });
    await vi.advanceTimersByTimeAsync(300);

    await expect(commit).resolves.toBeUndefined();
    expect(loading.offsetCommit).toHaveBeenCalledTimes(2);
  });

  it('gives the move back to kafkajs (which joins again) when no coordinator takes the group in time', async () => {
    vi.useFakeTimers();
    const old = broker('old', NOT_COORDINATOR);
    const cluster = { findGroupCoordinator: vi.fn(() => Promise.reject(new Error('no broker answered'))) };
    const group = consumerGroup(cluster, old);

    const beat = expect(group.heartbeat({ interval: 0 })).rejects.toMatchObject({ type: 'NOT_COORDINATOR_FOR_GROUP' });
    await vi.advanceTimersByTimeAsync(3_000);

    await beat;
    expect(cluster.findGroupCoordinator.mock.calls.length).toBeGreaterThan(1);
    expect(group.coordinator).toBe(old);
  });

  it('is suspected after a lost connection or an unanswered request, not after any refusal', () => {
    const lost = Object.assign(new Error('Connection error: connect ECONNREFUSED'), { name: 'KafkaJSConnectionError' });
    expect(coordinatorMayHaveMoved(lost)).toBe(true);
    expect(coordinatorMayHaveMoved(createErrorFromCode(NOT_COORDINATOR))).toBe(true);
    expect(coordinatorMayHaveMoved(createErrorFromCode(REBALANCE_IN_PROGRESS))).toBe(false);
    expect(coordinatorMayHaveMoved('NOT_COORDINATOR_FOR_GROUP')).toBe(false);
  });
});
