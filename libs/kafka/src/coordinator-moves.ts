// kafkajs 2.2.4 talks to a consumer group's coordinator as it found it at the member's last join. When a broker
// restart moves the group's coordinator (its partition of the offsets topic gets a new leader), the old broker
// answers NOT_COORDINATOR to every heartbeat and commit, or stops answering at all:
// - a commit is retried by kafkajs at the same broker, for ever with our retry settings: OffsetManager's
//   getCoordinator looks again only for the broker of the same node id (tulios/kafkajs#1779, open);
// - a refused heartbeat counts as a rebalance, so the member joins again. A group leader's join makes the
//   coordinator rebalance the whole group: every member stops fetching until all have joined again.
// - the new coordinator answers COORDINATOR_LOAD_IN_PROGRESS until it has read the group; a commit refused so
//   fails the member's fetch loop, and kafkajs stops every fetch of the member for its retry pause (fetch-retries.ts:
//   the rolling-deploy soak saw it in four runs of seven).
// Java's client does none of these: on NOT_COORDINATOR or a lost connection it asks who the coordinator is and goes
// on with the same member id and generation, which the new coordinator loaded with the group, and it sends a
// request refused while the coordinator loads again after a pause. So do we.
import ConsumerGroup from 'kafkajs/src/consumer/consumerGroup.js';
import OffsetManager from 'kafkajs/src/consumer/offsetManager/index.js';
import { protocolErrorType, whileRetriable } from './kafkajs-accommodations';

/** What kafkajs' ConsumerGroup and OffsetManager hold that this file reads and sets. */
interface CoordinatorHolder {
  cluster: { findGroupCoordinator(options: { groupId: string }): Promise<unknown> };
  groupId: string;
  coordinator: unknown;
}

interface GroupState extends CoordinatorHolder {
  offsetManager: CoordinatorHolder | null;
}

/** Errors after which the broker the member talks to may no longer be its group's coordinator. */
const MOVED_TYPES = new Set(['NOT_COORDINATOR_FOR_GROUP', 'GROUP_COORDINATOR_NOT_AVAILABLE']);
const LOST_BROKER_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
]);

export function coordinatorMayHaveMoved(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const type = protocolErrorType(err);
  return (type !== undefined && MOVED_TYPES.has(type)) || LOST_BROKER_NAMES.has(err.name);
}

/**
 * The group's coordinator as the cluster names it now, or undefined when it cannot say yet (the caller's error
 * then stands and kafkajs' own retry asks again).
 */
async function findCoordinator(holder: CoordinatorHolder): Promise<unknown> {
  try {
    return await holder.cluster.findGroupCoordinator({ groupId: holder.groupId });
  } catch {
    return undefined;
  }
}

let mended = false;

/**
 * Makes every consumer group member follow its coordinator when it moves, instead of committing to the old one
 * for ever or joining again. Idempotent; applied in createKafka.
 */
export function mendCoordinatorMoves(): void {
  if (mended) return;
  mended = true;

  // A commit kafkajs makes itself (eachMessage's auto-commit, in the fetch loop) would take the refusal for a
  // rebalance and join again; a manual one (runner.commitOffsets) would be retried at the old broker.
  const commitOffsets = OffsetManager.prototype.commitOffsets;
  OffsetManager.prototype.commitOffsets = async function (this: object, ...args: unknown[]) {
    try {
      return await commitOffsets.apply(this, args);
    } catch (err) {
      if (!coordinatorMayHaveMoved(err) && !isLoading(err)) throw err;
      return await followCoordinator(this as CoordinatorHolder, err, () => commitOffsets.apply(this, args));
    }
  };

  const heartbeat = ConsumerGroup.prototype.heartbeat;
  const following = new WeakMap<GroupState, Promise<unknown>>();
  ConsumerGroup.prototype.heartbeat = async function (this: object, ...args: unknown[]) {
    try {
      return await heartbeat.apply(this, args);
    } catch (err) {
      if (!coordinatorMayHaveMoved(err) && !isLoading(err)) throw err;
      const group = this as GroupState;
      // Concurrent heartbeats (kafkajs' own and one kept during a handler call) follow the move once.
      let follow = following.get(group);
      if (!follow) {
        follow = followCoordinator(group, err, () => heartbeat.apply(this, args)).finally(() =>
          following.delete(group),
        );
        following.set(group, follow);
      }
      return await follow;
    }
  };
}

/** Before the member's session (15 s) is at risk; a broker restart's move settles within a second or two. */
const FOLLOW_DEADLINE_MS = 3_000;
const FOLLOW_MAX_PAUSE_MS = 800;

/** The group's coordinator is now `found`, for its heartbeats and for its offset manager's commits. */
function adopt(holder: CoordinatorHolder | GroupState, found: unknown): void {
  holder.coordinator = found;
  if ('offsetManager' in holder && holder.offsetManager) holder.offsetManager.coordinator = found;
}

/**
 * Finds the coordinator and sends the request there, again while the move is under way: FindCoordinator can name
 * the new broker before that broker takes the group (it answers NOT_COORDINATOR, or that it is still loading the
 * group), seen in the rollout soak at each broker restart. The member and its generation stand at the new
 * coordinator; a refusal that is not about the move (a rebalance, a member the group no longer knows) is kafkajs'
 * to act on as usual, and so is the move's own error once the deadline has passed.
 */
async function followCoordinator<R>(
  holder: CoordinatorHolder | GroupState,
  first: unknown,
  send: () => Promise<R>,
): Promise<R> {
  // What the caller is given back at the deadline: the last refusal, or the first one while no coordinator is named.
  let last = first;
  return whileRetriable(
    async () => {
      const found = await findCoordinator(holder);
      if (!found) throw last;
      adopt(holder, found);
      try {
        return await send();
      } catch (err) {
        last = err;
        throw err;
      }
    },
    Date.now() + FOLLOW_DEADLINE_MS,
    { retryOn: (err) => coordinatorMayHaveMoved(err) || isLoading(err), maxPauseMs: FOLLOW_MAX_PAUSE_MS },
  );
}

function isLoading(err: unknown): boolean {
  return protocolErrorType(err) === 'GROUP_LOAD_IN_PROGRESS';
}
