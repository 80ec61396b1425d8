// In-process scheduling of webhook attempts (no head-of-line blocking, architecture.md Messaging rules).
// Each destination host has its own FIFO queue and its own concurrency limit; hosts take turns for the global
// in-flight slots, so a host that hangs holds at most `maxPerHost` slots and never delays any other host.
// Memory is bounded: a host's queue beyond `maxQueuedPerHost` is refused ("spilled": the delivery stays
// pending in the database and the recovery sweep brings it back later), and when the total queued reaches
// `maxQueued`, `waitForRoom()` makes the consumers wait (backpressure).
// A slot is for talking to the host: a job calls `release()` once its request is over, and what it still does
// (recording the attempt, which waits for the database) no longer keeps the host's next attempt waiting. Such a
// finishing job still counts against `maxQueued`, so attempts sent faster than they are recorded cannot pile
// up in memory, and `idle()` waits for it. So does a place reserved (`reserve()`) for an attempt that will be
// submitted once its event is recorded: a consumer takes its places before it fetches on, not after.

export interface SchedulerLimits {
  maxInFlight: number;
  maxPerHost: number;
  maxQueuedPerHost: number;
  maxQueued: number;
}

export type SubmitResult = 'queued' | 'duplicate' | 'spilled' | 'stopped';

/** `release` frees the job's slots early (idempotent); otherwise they are freed when the job settles. */
export type JobRun = (release: () => void) => Promise<void>;

interface Job {
  key: string;
  run: JobRun;
}

interface HostState {
  queue: Job[];
  running: number;
}

export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
  /** Hosts with queued work and a free per-host slot, in turn order. */
  private readonly ready: string[] = [];
  private readonly readySet = new Set<string>();
  /** Keys queued or running, so the same attempt is never scheduled twice in this process. */
  private readonly known = new Set<string>();
  private running = 0;
  private queuedTotal = 0;
  /** Jobs that released their slots and have not settled yet. */
  private finishing = 0;
  /** Places reserved for jobs not submitted yet. */
  private reserved = 0;
  private stopped = false;
  private roomWaiters: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly limits: SchedulerLimits,
    private readonly onError: (err: unknown, key: string) => void = () => {},
  ) {}

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.queuedTotal;
  }

  has(key: string): boolean {
    return this.known.has(key);
  }

  /** Whether a job for `host` would be queued now rather than spilled: its own queue and the total both have room. */
  hasRoomFor(host: string): boolean {
    return this.hostHasRoom(host) && this.hasRoom();
  }

  /**
   * Whether `host`'s own queue has room, whatever the total: a consumer that waited for room (waitForRoom) queues
   * on, so the total can pass its bound by at most one job per consumer resumed at once.
   */
  hostHasRoom(host: string): boolean {
    return !this.stopped && (this.hosts.get(host)?.queue.length ?? 0) < this.limits.maxQueuedPerHost;
  }

  submit(key: string, host: string, run: JobRun): SubmitResult {
    if (this.stopped) return 'stopped';
    if (this.known.has(key)) return 'duplicate';
    let state = this.hosts.get(host);
    if (!state) {
      state = { queue: [], running: 0 };
      this.hosts.set(host, state);
    }
    if (state.queue.length >= this.limits.maxQueuedPerHost) return 'spilled';
    this.known.add(key);
    state.queue.push({ key, run });
    this.queuedTotal += 1;
    this.markReady(host, state);
    this.pump();
    return 'queued';
  }

  /** Resolves once the total queue is below its bound (immediately when it is). */
  waitForRoom(): Promise<void> {
    if (this.hasRoom() || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /**
   * Waits for room (as waitForRoom) and takes a place in the total for a job the caller submits later, or finds
   * it need not. Returns the function that gives the place back (idempotent); call it just before submitting.
   */
  async reserve(): Promise<() => void> {
    await this.waitForRoom();
    this.reserved += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.reserved -= 1;
      this.pump();
    };
  }

  /** Stops taking work; queued jobs are dropped (their deliveries stay pending in the database). */
  stop(): void {
    this.stopped = true;
    for (const state of this.hosts.values()) {
      for (const job of state.queue) this.known.delete(job.key);
      this.queuedTotal -= state.queue.length;
      state.queue = [];
    }
    this.ready.length = 0;
    this.readySet.clear();
    for (const resolve of this.roomWaiters.splice(0)) resolve();
  }

  /** Resolves when nothing is running, being recorded or reserved (after stop(), when in-flight attempts have finished). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private hasRoom(): boolean {
    return this.queuedTotal + this.finishing + this.reserved < this.limits.maxQueued;
  }

  private isIdle(): boolean {
    return this.running === 0 && this.queuedTotal === 0 && this.finishing === 0 && this.reserved === 0;
  }

  private markReady(host: string, state: HostState): void {
    if (state.queue.length > 0 && state.running < this.limits.maxPerHost && !this.readySet.has(host)) {
      this.readySet.add(host);
      this.ready.push(host);
    }
  }

  private pump(): void {
    while (this.running < this.limits.maxInFlight && this.ready.length > 0) {
      const host = this.ready.shift() as string;
      this.readySet.delete(host);
      const state = this.hosts.get(host);
      const job = state?.queue.shift();
      if (!state || !job) continue;
      this.queuedTotal -= 1;
      state.running += 1;
      this.running += 1;
      this.markReady(host, state);
      void this.execute(host, state, job);
    }
    if (this.hasRoom()) for (const resolve of this.roomWaiters.splice(0)) resolve();
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async execute(host: string, state: HostState, job: Job): Promise<void> {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      state.running -= 1;
      this.running -= 1;
      this.finishing += 1;
      if (state.running === 0 && state.queue.length === 0 && this.hosts.get(host) === state) this.hosts.delete(host);
      else this.markReady(host, state);
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
