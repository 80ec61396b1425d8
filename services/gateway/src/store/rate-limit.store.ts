import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';

interface SlotDocument {
  _id: string;
  expiresAt: Date;
}

/**
 * A fixed-window rate limit shared by every gateway replica. Each admitted request claims one numbered slot
 * of its key's current window by inserting it: the unique _id makes the claim atomic on MongoDB and on
 * FerretDB alike, where a shared $inc counter would lose increments. A replica starts at the slot after the
 * last one it claimed, so without contention one insert admits a request.
 */
export class RateLimiter {
  private readonly slots: Collection<SlotDocument>;
  private readonly nextSlot = new Map<string, number>();
  private cleanupTimer: NodeJS.Timeout | undefined;

  constructor(
    db: Db,
    private readonly limitPerWindow: number,
    private readonly windowMs = 1_000,
  ) {
    this.slots = db.collection(COLLECTIONS.rateLimitSlots);
  }

  /** Returns 0 when the request is admitted, else the seconds until the window resets. */
  async admit(keyId: string, now = Date.now()): Promise<number> {
    const window = Math.floor(now / this.windowMs);
    const windowKey = `${keyId}:${window}`;
    let slot = this.nextSlot.get(windowKey) ?? 0;
    while (slot < this.limitPerWindow) {
      try {
        await this.slots.insertOne({ _id: `${windowKey}:${slot}`, expiresAt: new Date((window + 2) * this.windowMs) });
        this.nextSlot.set(windowKey, slot + 1);
        return 0;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        slot++;
      }
    }
    this.nextSlot.set(windowKey, slot);
    return Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
  }

  /** Old windows are deleted by a timer, since the local engine applies no TTL index. */
  startCleanup(intervalMs = 5_000): void {
    this.cleanupTimer = setInterval(() => {
      const now = Date.now();
      for (const key of this.nextSlot.keys()) {
        if (Number(key.slice(key.lastIndexOf(':') + 1)) < Math.floor(now / this.windowMs) - 1) this.nextSlot.delete(key);
      }
      this.slots.deleteMany({ expiresAt: { $lt: new Date(now) } }).catch(() => {});
    }, intervalMs);
    this.cleanupTimer.unref();
  }

  stopCleanup(): void {
    clearInterval(this.cleanupTimer);
  }
}
