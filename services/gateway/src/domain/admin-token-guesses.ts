import type { BlockList } from 'node:net';
import { isInNetworks } from './client-address';

/**
 * Wrong operator tokens per peer address, in minute-long windows aligned to the epoch (admin-token
 * guesses were unlimited). An address that reaches the limit is refused, whatever token it sends, until its
 * window ends. The address is the TCP peer (peerAddress), never X-Forwarded-For. Peers in `exempt` (by default
 * loopback: kubectl port-forward, which reaches the pod from inside its network namespace, and the local load
 * balancer, behind which every caller shares one address) are not counted, as fail2ban ignores 127.0.0.1 by
 * default: a shared address would let one caller's wrong tokens lock every operator out. In this replica's
 * memory: an attacker spread over N replicas gets N times the limit, which is still a handful of guesses a minute
 * against a 32-character random token.
 */
export class AdminTokenGuesses {
  private window = Number.NaN;
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly limitPerMinute: number,
    private readonly exempt?: BlockList,
    private readonly windowMs = 60_000,
  ) {}

  /** Whole seconds until this address may try again; 0 when it may try now. */
  blockedFor(client: string, now: number): number {
    this.roll(now);
    if (this.isExempt(client) || (this.failures.get(client) ?? 0) < this.limitPerMinute) return 0;
    return Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
  }

  failed(client: string, now: number): void {
    this.roll(now);
    if (this.isExempt(client)) return;
    this.failures.set(client, (this.failures.get(client) ?? 0) + 1);
  }

  private isExempt(client: string): boolean {
    return this.exempt !== undefined && isInNetworks(this.exempt, client);
  }

  private roll(now: number): void {
    const window = Math.floor(now / this.windowMs);
    if (window === this.window) return;
    this.window = window;
    this.failures.clear();
  }
}
