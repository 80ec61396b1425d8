import { randomBytes } from 'node:crypto';
import { scoped, type Collection, type Db, type Scope, type ScopedDocument } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';

export interface StoredResponse {
  status: number;
  /** The response body as JSON text: user-chosen keys (metadata) may hold "." or "$". */
  body: string;
}

interface IdempotencyDocument extends ScopedDocument {
  /** idempotencyRecordId(apiKeyId, key): the unique insert on it decides which request runs. */
  _id: string;
  apiKeyId: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** Names the request that inserted the record; only it may complete or release it. */
  token: string;
  /** Until when the running request may hold the key; after that it is taken to have died. */
  lockedUntil: Date;
  response: StoredResponse | null;
  createdAt: Date;
  /** After this the record is ignored and reclaimed (a sweep deletes it: the local engine applies no TTL index). */
  expiresAt: Date;
}

export type BeginResult =
  /** `since`: when the key's life began (its first use; kept by a retry after a 5xx; anew after expiry). */
  | { kind: 'started'; token: string; since: Date }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_use' }
  | { kind: 'reused' };

/**
 * D42's records. Which of several concurrent requests with one key runs is decided by inserting the record
 * (unique _id). Every later change of a record (its response, its release after a 5xx, reclaiming an expired
 * or abandoned one) is one write conditional on the token of the request that inserted it, so a request that
 * lost its record to a reclaim can never overwrite or delete its successor's.
 */
export class IdempotencyStore {
  private readonly collection: Collection<IdempotencyDocument>;

  constructor(
    db: Db,
    private readonly options: { retentionMs: number; lockMs: number },
  ) {
    this.collection = db.collection<IdempotencyDocument>(COLLECTIONS.idempotencyKeys);
  }

  async begin(
    scope: Scope,
    input: { id: string; apiKeyId: string; fingerprint: string; now: Date },
  ): Promise<BeginResult> {
    const records = scoped(this.collection, scope);
    const { now } = input;
    // A record that disappears or is reclaimed between our insert and our read sends us round again; a few
    // rounds only happen under heavy contention on one key, which then answers "in use" (the client retries).
    for (let round = 0; round < 3; round += 1) {
      const token = randomBytes(12).toString('base64url');
      const { created, doc: existing } = await records.insertOnce({
        _id: input.id,
        apiKeyId: input.apiKeyId,
        fingerprint: input.fingerprint,
        state: 'in_progress',
        token,
        lockedUntil: new Date(now.getTime() + this.options.lockMs),
        response: null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.options.retentionMs),
      });
      if (created) return { kind: 'started', token, since: now };
      if (!existing) continue;
      if (existing.expiresAt <= now) {
        await this.deleteIfUnchanged(existing._id, existing.token);
        continue;
      }
      const abandoned = existing.state === 'in_progress' && existing.lockedUntil <= now;
      if (abandoned && existing.fingerprint === input.fingerprint) {
        // A retry after a 5xx (release) or a crash: the same request in the same life of the key, so the owner is
        // told the same `since` and derives the same ids (a refund committed behind the 5xx is met, not made again).
        if (await this.reclaim(existing, token, now)) return { kind: 'started', token, since: existing.createdAt };
        continue;
      }
      if (abandoned) {
        await this.deleteIfUnchanged(existing._id, existing.token);
        continue;
      }
      if (existing.fingerprint !== input.fingerprint) return { kind: 'reused' };
      if (existing.state === 'in_progress' || existing.response === null) return { kind: 'in_use' };
      return { kind: 'replay', response: existing.response };
    }
    return { kind: 'in_use' };
  }

  /** Keeps the first response (status below 500) for replays. */
  async complete(scope: Scope, id: string, token: string, response: StoredResponse, now: Date): Promise<void> {
    await scoped(this.collection, scope).findOneAndUpdate(
      { _id: id, token },
      { $set: { state: 'completed', response, lockedUntil: now } },
    );
  }

  /**
   * Frees the key after a 5xx or a crash of the handler, so the client may retry with it. The record stays, its lock
   * lapsed, so the key's life (createdAt, expiresAt) outlasts the retry; a gateway of the release before, which
   * deleted it, reads it as abandoned and reclaims it as it always did.
   */
  async release(id: string, token: string, now: Date): Promise<void> {
    await this.collection.updateOne({ _id: id, token }, { $set: { lockedUntil: now } });
  }

  /** Deletes records past their retention; the reads ignore them already, this only reclaims the space. */
  async deleteExpired(now: Date): Promise<number> {
    // A reclaimed key's new record has a later expiresAt, so this never deletes a live record.
    return (await this.collection.deleteMany({ expiresAt: { $lt: now } })).deletedCount;
  }

  private async reclaim(existing: IdempotencyDocument, token: string, now: Date): Promise<boolean> {
    const taken = await this.collection.updateOne(
      { _id: existing._id, token: existing.token },
      { $set: { token, state: 'in_progress', lockedUntil: new Date(now.getTime() + this.options.lockMs) } },
    );
    return taken.modifiedCount === 1;
  }

  private async deleteIfUnchanged(id: string, token: string): Promise<boolean> {
    return (await this.collection.deleteOne({ _id: id, token })).deletedCount === 1;
  }
}
