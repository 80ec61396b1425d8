// In-process scheduling of webhook attempts (no head-of-line blocking, docs/engineering.md, messaging rules), fair
// between tenants.
// Attempts are grouped into lanes, one per organization (both its modes together), and inside a lane into one
// FIFO queue per mode and destination host. Lanes take turns for the global in-flight slots, and inside a lane
// its queues take turns, so:
// - a lane holds at most `maxInFlightPerLane` slots, and queues at most `maxQueuedPerLane` attempts, its test and
//   live ones together: one merchant whose endpoints all hang (tarpits on many ports, in test mode, in live mode
//   through redeliver, or both) ties up that many, never all of them, and every other lane keeps its turns (a
//   lane per organization and mode gave a merchant using both its keys two shares: every slot);
// - test-mode lanes together hold at most `maxInFlight - liveReservedInFlight` slots, and queue at most
//   `maxQueued - liveReservedQueued` attempts: test traffic never takes the room live traffic needs;
// - a host holds at most `maxPerHost` slots whichever lanes its attempts come from (the sender's connection
//   pool is per host, so this is what the host really gets);
// - attempts to a merchant's webhook endpoint (D50) queue apart from the rest of their host and hold at most
//   `maxPerDestination` of its slots: one endpoint that hangs leaves the host's other slots to the merchant's other
//   endpoints on it, and its FIFO never holds theirs back.
// Memory is bounded: a lane's queue beyond `maxQueuedPerLane`, or a host's queue in a lane beyond
// `maxQueuedPerHost`, is refused ("spilled": the delivery stays pending in the database and the recovery sweep
// brings it back when that lane has room again), and when the total queued reaches `maxQueued`, `waitForRoom()`
// makes the consumers wait (backpressure). One lane cannot reach that total alone, so its backlog spills instead
// of pausing the consumers that every merchant shares.
// A slot is for talking to the host: a job calls `release()` once its request is over, and what it still does
// (recording the attempt, which waits for the database) no longer keeps the host's next attempt waiting. Such a
// finishing job still counts against `maxQueued`, so attempts sent faster than they are recorded cannot pile
// up in memory, and `idle()` waits for it. So does a place reserved (`reserve()`) for an attempt that will be
// submitted once its event is recorded: a consumer takes its places before it fetches on, not after.
// - an attempt also takes a slot on the address and port its name resolved to (`addresses.take`, once it runs): at most
//   `maxPerAddress` there, so names that all resolve to one victim share one cap (address-slots.ts).
// All of this is per process: with several dispatcher replicas each enforces these limits on what it holds
// (docs/operations.md, "What each replica keeps in memory").

import {
  scopeKey,
  queueKey,
  type Job,
  type JobRun,
  type Lane,
  type LaneState,
  type Mode,
  type SchedulerLimits,
  type SubmitResult,
  type Target,
} from './lanes';
import { AddressSlots } from './address-slots';

export class HostScheduler {
  private readonly lanes = new Map<string, LaneState>();
  /** Lanes with queued work, in turn order. */
  private readonly ready: string[] = [];
  private readonly readySet = new Set<string>();
  /** Running attempts per host, all lanes together. */
  private readonly hostRunning = new Map<string, number>();
  /** Running attempts per destination. */
  private readonly destinationRunning = new Map<string, number>();
  /** Keys queued or running, so the same attempt is never scheduled twice in this process. */
  private readonly known = new Set<string>();
  private readonly runningByMode: Record<Mode, number> = { test: 0, live: 0 };
  private readonly queuedByMode: Record<Mode, number> = { test: 0, live: 0 };
  private running = 0;
  private queuedTotal = 0;
  /** Jobs that released their slots and have not settled yet. */
  private finishing = 0;
  /** Places reserved for jobs not submitted yet. */
  private reserved = 0;
  private stopped = false;
  /** Lanes that spilled because the lane or its mode was full; told when they have room again (onLaneRoom). */
  private readonly spilledLanes = new Map<string, Lane>();
  private laneRoomListener: (lane: Lane) => void = () => {};
  private roomWaiters: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];
  private readonly caps: Required<SchedulerLimits>;
  /** The queue places and slots each mode may take: all of them for live, all but live's reserve for test. */
  private readonly queueCap: Record<Mode, number>;
  private readonly inFlightCap: Record<Mode, number>;
  /**
   * The slots of the addresses and ports connections go to (`maxPerAddress`), taken by a running job and waited for
   * in turn while others hold them all.
   */
  readonly addresses: AddressSlots;

  constructor(
    limits: SchedulerLimits,
    private readonly onError: (err: unknown, key: string) => void = () => {},
  ) {
    this.caps = {
      maxPerDestination: limits.maxPerHost,
      maxPerAddress: limits.maxPerHost,
      maxInFlightPerLane: limits.maxInFlight,
      maxQueuedPerLane: limits.maxQueued,
      liveReservedInFlight: 0,
      liveReservedQueued: 0,
      ...limits,
    };
    const { maxQueued, maxInFlight, liveReservedQueued, liveReservedInFlight } = this.caps;
    this.queueCap = { test: maxQueued - liveReservedQueued, live: maxQueued };
    this.inFlightCap = { test: maxInFlight - liveReservedInFlight, live: maxInFlight };
    this.addresses = new AddressSlots(this.caps.maxPerAddress);
  }

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.queuedTotal;
  }

  has(key: string): boolean {
    return this.known.has(key);
  }

  /** Whether a job for `target` would be queued now rather than spilled: its queues and the total all have room. */
  hasRoomFor(target: Target): boolean {
    return this.hasQueueRoom(target) && this.hasRoom();
  }

  /**
   * Whether `target`'s own queues (its host's in its lane, its lane's, its mode's) have room, whatever the total:
   * a consumer that waited for room (waitForRoom) queues on, so the total can pass its bound by at most one job per
   * consumer resumed at once.
   */
  hasQueueRoom(target: Target): boolean {
    if (this.stopped) return false;
    const hostQueued = this.lanes.get(target.lane.organizationId)?.queues.get(queueKey(target))?.length ?? 0;
    return hostQueued < this.caps.maxQueuedPerHost && !this.laneIsFull(target.lane);
  }

  /**
   * Organizations and modes that would spill whatever host they named (a full lane: both modes of its
   * organization): the recovery sweep looks past their deliveries.
   */
  fullLanes(): Lane[] {
    const full: Lane[] = [];
    for (const [organizationId, state] of this.lanes) {
      if (state.queued < this.caps.maxQueuedPerLane) continue;
      full.push({ organizationId, mode: 'test' }, { organizationId, mode: 'live' });
    }
    return full;
  }

  /** Modes whose lanes would all spill (test mode at its share). */
  fullModes(): Mode[] {
    return (['test', 'live'] as const).filter((mode) => this.queuedByMode[mode] >= this.queueCap[mode]);
  }

  /** Told when a lane armed with `whenLaneHasRoom` has room again. */
  onLaneRoom(listener: (lane: Lane) => void): void {
    this.laneRoomListener = listener;
  }

  /** Whether `lane`'s organization (or its mode) is at its queue bound: what it sends now spills whatever the host. */
  laneIsFull(lane: Lane): boolean {
    return (
      (this.lanes.get(lane.organizationId)?.queued ?? 0) >= this.caps.maxQueuedPerLane ||
      this.queuedByMode[lane.mode] >= this.queueCap[lane.mode]
    );
  }

  /**
   * Arms the lane-room listener for `lane`, once: it is told as soon as the lane (and its mode) has drained to half
   * its bound, at once if it has already. What a full lane spilled is in the database by then, and the lane takes
   * it back rather than wait for the recovery sweep. (What spills because one host's queue is full is left to the
   * sweep: that host is slow.)
   */
  whenLaneHasRoom(lane: Lane): void {
    if (this.stopped) return;
    this.spilledLanes.set(scopeKey(lane), { organizationId: lane.organizationId, mode: lane.mode });
    queueMicrotask(() => this.tellLanesWithRoom());
  }

  submit(key: string, target: Target, run: JobRun): SubmitResult {
    if (this.stopped) return 'stopped';
    if (this.known.has(key)) return 'duplicate';
    if (!this.hasQueueRoom(target)) {
      // Only work that is stored already is submitted here (retries, the sweep): the lane can take it back later.
      if (this.laneIsFull(target.lane)) this.whenLaneHasRoom(target.lane);
      return 'spilled';
    }
    const id = target.lane.organizationId;
    const inLane = queueKey(target);
    let state = this.lanes.get(id);
    if (!state) {
      state = { running: 0, queued: 0, queues: new Map(), turns: [] };
      this.lanes.set(id, state);
    }
    let queue = state.queues.get(inLane);
    if (!queue) {
      queue = [];
      state.queues.set(inLane, queue);
      state.turns.push(inLane);
    }
    this.known.add(key);
    queue.push({
      key,
      host: target.host,
      mode: target.lane.mode,
      queue: inLane,
      counted: target.destination !== undefined,
      run,
    });
    state.queued += 1;
    this.queuedByMode[target.lane.mode] += 1;
    this.queuedTotal += 1;
    if (!this.readySet.has(id)) {
      this.readySet.add(id);
      this.ready.push(id);
    }
    this.pump();
    return 'queued';
  }

  /** Resolves once the total queue is below its bound (at once when it is): a place reserved, given back at once. */
  async waitForRoom(): Promise<void> {
    (await this.reserve())();
  }

  /**
   * Waits for room (as waitForRoom) and takes a place in the total for a job the caller submits later, or finds
   * it need not. Returns the function that gives the place back (idempotent); call it just before submitting.
   */
  async reserve(): Promise<() => void> {
    if (!this.hasRoom() && !this.stopped) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    this.reserved += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.reserved -= 1;
      this.pump();
    };
  }

  /** Stops taking work; queued jobs are dropped (their deliveries stay pending in the database). Returns their keys. */
  stop(): string[] {
    this.stopped = true;
    this.addresses.stop();
    const dropped: string[] = [];
    for (const [id, state] of this.lanes) {
      for (const queue of state.queues.values()) {
        for (const job of queue) {
          this.known.delete(job.key);
          this.queuedByMode[job.mode] -= 1;
          dropped.push(job.key);
        }
      }
      this.queuedTotal -= state.queued;
      state.queued = 0;
      state.queues.clear();
      state.turns.length = 0;
      if (state.running === 0) this.lanes.delete(id);
    }
    this.ready.length = 0;
    this.readySet.clear();
    this.spilledLanes.clear();
    for (const resolve of this.roomWaiters.splice(0)) resolve();
    return dropped;
  }

  /**
   * Resolves when nothing is running, being recorded or reserved (after stop(), when in-flight attempts have finished).
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private hasRoom(): boolean {
    return this.queuedTotal + this.finishing + this.reserved < this.caps.maxQueued;
  }

  private isIdle(): boolean {
    return this.running === 0 && this.queuedTotal === 0 && this.finishing === 0 && this.reserved === 0;
  }

  /**
   * Starts what may start: lanes in turn, one job per turn, each from the next of the lane's queues whose mode and
   * host have a free slot. A lane at its cap, or whose every queue waits for its mode's or host's cap, sits its
   * turn out and is looked at again when a slot comes free.
   */
  private pump(): void {
    let started = true;
    while (started && this.running < this.caps.maxInFlight && this.ready.length > 0) {
      started = false;
      for (let turns = this.ready.length; turns > 0 && this.running < this.caps.maxInFlight; turns -= 1) {
        const id = this.ready.shift() as string;
        const state = this.lanes.get(id);
        let job: Job | undefined;
        // The lane's queues in turn: the first whose head's host, mode and destination have a free slot.
        for (let inTurn = state?.turns.length ?? 0; state && !job && inTurn > 0; inTurn -= 1) {
          if (state.running >= this.caps.maxInFlightPerLane) break;
          const inLane = state.turns.shift() as string;
          const queue = state.queues.get(inLane) as Job[];
          const head = queue[0] as Job;
          if (
            (this.hostRunning.get(head.host) ?? 0) >= this.caps.maxPerHost ||
            this.runningByMode[head.mode] >= this.inFlightCap[head.mode] ||
            (head.counted && (this.destinationRunning.get(inLane) ?? 0) >= this.caps.maxPerDestination)
          ) {
            state.turns.push(inLane);
            continue;
          }
          job = queue.shift();
          if (queue.length > 0) state.turns.push(inLane);
          else state.queues.delete(inLane);
        }
        if (state && state.queued > 0) this.ready.push(id);
        else this.readySet.delete(id);
        if (!state || !job) continue;
        started = true;
        void this.execute(id, state, job);
      }
    }
    if (this.hasRoom()) for (const resolve of this.roomWaiters.splice(0)) resolve();
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private tellLanesWithRoom(): void {
    for (const [id, lane] of this.spilledLanes) {
      const queued = this.lanes.get(lane.organizationId)?.queued ?? 0;
      if (queued * 2 > this.caps.maxQueuedPerLane || this.queuedByMode[lane.mode] * 2 > this.queueCap[lane.mode])
        continue;
      this.spilledLanes.delete(id);
      this.laneRoomListener(lane);
    }
  }

  /** Runs a job taken from its queue: its slots counted until `release`, itself known until it settles. */
  private async execute(id: string, state: LaneState, job: Job): Promise<void> {
    const mode = job.mode;
    state.queued -= 1;
    state.running += 1;
    this.queuedByMode[mode] -= 1;
    this.queuedTotal -= 1;
    this.runningByMode[mode] += 1;
    this.running += 1;
    this.hostRunning.set(job.host, (this.hostRunning.get(job.host) ?? 0) + 1);
    if (job.counted) this.destinationRunning.set(job.queue, (this.destinationRunning.get(job.queue) ?? 0) + 1);
    if (this.spilledLanes.size > 0) this.tellLanesWithRoom();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      state.running -= 1;
      this.runningByMode[job.mode] -= 1;
      this.running -= 1;
      const onHost = (this.hostRunning.get(job.host) ?? 1) - 1;
      if (onHost === 0) this.hostRunning.delete(job.host);
      else this.hostRunning.set(job.host, onHost);
      if (job.counted) {
        const toDestination = (this.destinationRunning.get(job.queue) ?? 1) - 1;
        if (toDestination === 0) this.destinationRunning.delete(job.queue);
        else this.destinationRunning.set(job.queue, toDestination);
      }
      this.finishing += 1;
      if (state.running === 0 && state.queued === 0 && this.lanes.get(id) === state) this.lanes.delete(id);
      // Any lane may have been waiting for this slot (the global cap, its mode's, or this host's).
      this.pump();
    };
    try {
      await job.run(release);
    } catch (err) {
      this.onError(err, job.key);
    } finally {
      release();
      // The key stays known until the job settles: a replay of the same attempt is not sent while it is recorded.
      this.known.delete(job.key);
      this.finishing -= 1;
      this.pump();
    }
  }
}
