// The cap on attempts in flight to one resolved address and port, whatever names led there. The scheduler's caps
// key on the URL's `host:port`, so sixteen names resolving to one victim would each get a host's slots: the
// dispatcher a POST reflector. An attempt holding its name's slot takes one here too, on the address its
// connection will use (the sender resolves it once, checks it against D33 and connects to that same address), and
// waits in FIFO order while the address is full. Per process, as every scheduler cap is.

export class AddressSlots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();
  private stopped = false;

  constructor(private readonly maxPerAddress: number) {}

  /** Attempts in flight to `address` (tests, metrics). */
  inFlight(address: string): number {
    return this.running.get(address) ?? 0;
  }

  /**
   * Resolves once a slot on `address` is this caller's, with the function that gives it back (idempotent). After
   * stop() every caller gets a slot at once: the attempts check that they are stopped before sending.
   */
  take(address: string): Promise<() => void> {
    if (this.stopped || this.inFlight(address) < this.maxPerAddress) return Promise.resolve(this.hold(address));
    return new Promise((resolve) => {
      const queue = this.waiting.get(address) ?? [];
      queue.push(() => resolve(this.hold(address)));
      this.waiting.set(address, queue);
    });
  }

  /** Lets every waiting caller go (each then finds the attempts stopped). */
  stop(): void {
    this.stopped = true;
    const waiting = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const go of waiting) go();
  }

  private hold(address: string): () => void {
    this.running.set(address, this.inFlight(address) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = this.inFlight(address) - 1;
      if (left === 0) this.running.delete(address);
      else this.running.set(address, left);
      const queue = this.waiting.get(address);
      const next = queue?.shift();
      if (queue?.length === 0) this.waiting.delete(address);
      next?.();
    };
  }
}
