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

  /**
   * Resolves once a slot on `address` is this caller's, with the function that gives it back (idempotent). A slot
   * given back goes to the first caller waiting, counted for it at once, so no newcomer takes it in between. After
   * stop() every caller gets a slot at once: the attempts check that they are stopped before sending.
   */
  async take(address: string): Promise<() => void> {
    const running = this.running.get(address) ?? 0;
    if (this.stopped || running < this.maxPerAddress) this.running.set(address, running + 1);
    else {
      const queue = this.waiting.get(address) ?? [];
      this.waiting.set(address, queue);
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const queue = this.waiting.get(address);
      const next = queue?.shift();
      if (queue?.length === 0) this.waiting.delete(address);
      if (next) return next();
      const left = (this.running.get(address) ?? 1) - 1;
      if (left === 0) this.running.delete(address);
      else this.running.set(address, left);
    };
  }

  /** Lets every waiting caller go (each then finds the attempts stopped). */
  stop(): void {
    this.stopped = true;
    for (const [address, queue] of this.waiting) {
      this.running.set(address, (this.running.get(address) ?? 0) + queue.length);
      for (const go of queue) go();
    }
    this.waiting.clear();
  }
}
