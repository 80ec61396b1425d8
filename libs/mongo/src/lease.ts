import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { DependencyUnavailableError } from '@checkout/errors';
import { isDuplicateKeyError } from './errors';

interface LeaseDocument {
  _id: string;
  owner: string;
  expiresAt: Date;
}

export interface LeaseOptions {
  /** A holder that crashed blocks its key for at most this long. */
  ttlMs?: number;
  /** How long a caller waits for a busy key before giving up with a 503. */
  waitMs?: number;
}

/**
 * Mutual exclusion per aggregate, built on the one write both engines make atomic: an insert into a unique
 * _id. FerretDB 1.24 (SQLite) applies every update as read-document, modify in Go, write whole document by
 * _id with no predicate (internal/backends/sqlite/collection.go, UpdateAll), so neither conditional updates
 * nor $inc are atomic under concurrency there (measured: 2 winners of one findOneAndUpdate, 19 of 20 $inc
 * lost). Every read-modify-write of an aggregate therefore runs under its lease, on MongoDB as well, so the
 * code path is the same on both engines.
 */
export class Leases {
  private readonly collection: Collection<LeaseDocument>;
  private readonly ttlMs: number;
  private readonly waitMs: number;

  constructor(db: Db, options: LeaseOptions & { collection?: string } = {}) {
    this.collection = db.collection<LeaseDocument>(options.collection ?? 'leases');
    this.ttlMs = options.ttlMs ?? 15_000;
    this.waitMs = options.waitMs ?? 5_000;
  }

  async withLease<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const owner = await this.acquire(key);
    try {
      return await fn();
    } finally {
      await this.collection.deleteOne({ _id: key, owner }).catch(() => {
        // A lease we fail to release expires on its own after ttlMs.
      });
    }
  }

  /** Takes the lease if it is free right now; false if someone else holds it. For singleton work (sweepers). */
  async tryAcquire(key: string, ttlMs = this.ttlMs): Promise<{ release(): Promise<void> } | null> {
    const owner = randomBytes(9).toString('base64url');
    if (!(await this.tryInsert(key, owner, ttlMs))) {
      await this.clearIfExpired(key);
      if (!(await this.tryInsert(key, owner, ttlMs))) return null;
    }
    return {
      release: async () => {
        await this.collection.deleteOne({ _id: key, owner });
      },
    };
  }

  private async acquire(key: string): Promise<string> {
    const owner = randomBytes(9).toString('base64url');
    const deadline = Date.now() + this.waitMs;
    let backoffMs = 2;
    for (;;) {
      if (await this.tryInsert(key, owner, this.ttlMs)) return owner;
      await this.clearIfExpired(key);
      if (Date.now() > deadline) {
        throw new DependencyUnavailableError(`lease ${key} busy`);
      }
      // Backoff between attempts on a busy key; randomised so contenders don't retry in lockstep.
      await new Promise((resolve) => setTimeout(resolve, backoffMs * (0.5 + Math.random())));
      backoffMs = Math.min(backoffMs * 2, 50);
    }
  }

  private async tryInsert(key: string, owner: string, ttlMs: number): Promise<boolean> {
    try {
      await this.collection.insertOne({ _id: key, owner, expiresAt: new Date(Date.now() + ttlMs) });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  // A lease whose holder died is removed by its owner token, so a fresh lease taken meanwhile survives on
  // MongoDB; on FerretDB the delete's filter is not atomic either, which can only matter after a crash.
  private async clearIfExpired(key: string): Promise<void> {
    const lease = await this.collection.findOne({ _id: key });
    if (lease && lease.expiresAt.getTime() < Date.now()) {
      await this.collection.deleteOne({ _id: key, owner: lease.owner });
    }
  }
}
