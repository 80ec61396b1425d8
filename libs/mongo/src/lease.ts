import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from './errors';
import { retryTransientWriteConflicts } from './write-conflicts';

interface LeaseDocument {
  _id: string;
  owner: string;
  expiresAt: Date;
}

/** A lease held: give it back, or keep it for longer. */
export interface LeaseHandle {
  release(): Promise<void>;
  renew(): Promise<boolean>;
}

export interface LeaseOptions {
  /** A holder that crashed blocks its key for at most this long. */
  ttlMs?: number;
}

/** The collection of the leases, unless a caller names another. */
export const LEASES_COLLECTION = 'leases';

/**
 * A lock for singleton background work (a sweep that one replica at a time should run), built on an insert
 * into a unique _id. Request paths take no lock: their state changes are single conditional updates
 * (docs/engineering.md), so that a slow or crashed holder never stalls a customer's request.
 */
export class Leases {
  private readonly collection: Collection<LeaseDocument>;
  private readonly ttlMs: number;

  constructor(db: Db, options: LeaseOptions & { collection?: string } = {}) {
    this.collection = db.collection<LeaseDocument>(options.collection ?? LEASES_COLLECTION);
    this.ttlMs = options.ttlMs ?? 15_000;
  }

  /**
   * Takes the lease if it is free right now; null if someone else holds it. For singleton work (sweepers).
   * `renew()` extends it by `ttlMs` from now, and says false once it was lost (expired and taken by another):
   * a long job (a migration, libs/mongo migrations.ts; a recovery, D44) renews while it runs and stops when it is
   * no longer its.
   */
  async tryAcquire(key: string, ttlMs = this.ttlMs): Promise<LeaseHandle | null> {
    const owner = randomBytes(9).toString('base64url');
    if (!(await this.tryInsert(key, owner, ttlMs))) {
      await this.clearIfExpired(key);
      if (!(await this.tryInsert(key, owner, ttlMs))) return null;
    }
    return {
      release: async () => {
        await this.collection.deleteOne({ _id: key, owner });
      },
      renew: async () => {
        const renewed = await this.collection.updateOne(
          { _id: key, owner },
          { $set: { expiresAt: new Date(Date.now() + ttlMs) } },
        );
        return renewed.matchedCount === 1;
      },
    };
  }

  private async tryInsert(key: string, owner: string, ttlMs: number): Promise<boolean> {
    try {
      const lease = { _id: key, owner, expiresAt: new Date(Date.now() + ttlMs) };
      await retryTransientWriteConflicts(() => this.collection.insertOne(lease));
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  // A lease whose holder died is removed by its owner token, so a fresh lease taken meanwhile survives.
  private async clearIfExpired(key: string): Promise<void> {
    const lease = await this.collection.findOne({ _id: key });
    if (lease && lease.expiresAt.getTime() < Date.now()) {
      await this.collection.deleteOne({ _id: key, owner: lease.owner });
    }
  }
}
