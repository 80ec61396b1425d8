/**
 * Wrong operator tokens per client address, in minute-long windows aligned to the epoch (admin-token
 * guesses were unlimited). An address that reaches the limit is refused, whatever token it sends, until its
 * window ends. In this replica's memory: an attacker spread over N replicas gets N times the limit, which is
 * still a handful of guesses a minute against a 32-character random token.
 */
export class AdminTokenGuesses {
  private window = Number.NaN;
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly limitPerMinute: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Whole seconds until this address may try again; 0 when it may try now. */
  blockedFor(client: string, now: number): number {
    this.roll(now);
    if ((this.failures.get(client) ?? 0) < this.limitPerMinute) return 0;
    return Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
  }

  failed(client: string, now: number): void {
    this.roll(now);
    this.failures.set(client, (this.failures.get(client) ?? 0) + 1);
  }

  private roll(now: number): void {
    const window = Math.floor(now / this.windowMs);
    if (window === this.window) return;
    this.window = window;
    this.failures.clear();
  }
}
