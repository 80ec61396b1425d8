// The scheduler's vocabulary (host-scheduler.ts): its limits, whose an attempt is (its lane) and where it goes (its
// target), and the state it keeps per lane.

export interface SchedulerLimits {
  maxInFlight: number;
  maxPerHost: number;
  maxQueuedPerHost: number;
  maxQueued: number;
  /**
   * Slots the attempts to one resolved address and port may hold at once, whatever names they went by
   * (address-slots.ts). Defaults to maxPerHost.
   */
  maxPerAddress?: number;
  /** Slots the attempts to one destination (a webhook endpoint) may hold at once. Defaults to maxPerHost. */
  maxPerDestination?: number;
  /** Slots one organization may hold at once, both modes together. Defaults to maxInFlight (no lane limit). */
  maxInFlightPerLane?: number;
  /** Attempts one organization may have queued, both modes together. Defaults to maxQueued. */
  maxQueuedPerLane?: number;
  /** Slots test-mode lanes together can never take. Defaults to 0. */
  liveReservedInFlight?: number;
  /** Queue places test-mode lanes together can never take. Defaults to 0. */
  liveReservedQueued?: number;
}

/** Whose attempt it is: its organization and mode (the scheduler's lane is the organization, both modes together). */
export interface Lane {
  organizationId: string;
  mode: 'test' | 'live';
}

/**
 * Where an attempt goes (`host:port`), whose it is, and, for a delivery to a webhook endpoint (D50), which endpoint:
 * such attempts queue per endpoint instead of per host.
 */
export interface Target {
  host: string;
  lane: Lane;
  destination?: string;
}

export type SubmitResult = 'queued' | 'duplicate' | 'spilled' | 'stopped';

/** `release` frees the job's slots early (idempotent); otherwise they are freed when the job settles. */
export type JobRun = (release: () => void) => Promise<void>;

export type Mode = Lane['mode'];

export interface Job {
  key: string;
  host: string;
  mode: Mode;
  /** Its queue in the lane: the mode and destination's, or the mode and host's when it has none. */
  queue: string;
  /** Whether its queue is a destination's, whose slots are counted too. */
  counted: boolean;
  run: JobRun;
}

/** One organization's attempts, both modes. */
export interface LaneState {
  running: number;
  queued: number;
  /** Each mode and host's (or destination's) FIFO queue in this lane (keyed by queueKey); here only while not empty. */
  queues: Map<string, Job[]>;
  /** Keys of `queues` in turn order. */
  turns: string[];
}

/**
 * One key per organization and mode, for what is kept per mode: the refills of spilled work, the endpoints the
 * directory read (endpoint-directory.ts reads it back with scopeOfKey).
 */
export function scopeKey(scope: Lane): string {
  return `${scope.mode}:${scope.organizationId}`;
}

/** The queue of a target inside its organization's lane: its mode's, and its destination's or host's. */
export function queueKey(target: Target): string {
  const where = target.destination === undefined ? target.host : `${target.host} ${target.destination}`;
  return `${target.lane.mode} ${where}`;
}
