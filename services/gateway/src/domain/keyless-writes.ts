import { createHash, randomBytes } from 'node:crypto';
import type { Scope } from '@checkout/contracts';
import { requestFingerprint } from './idempotency';
import type { KeyedRequest } from './idempotent-requests';

/** Where a keyless write's unanswered tries are kept for its retry (store/unanswered-writes.store.ts). */
export interface UnansweredRecords {
  /** The record id the unanswered try of this intent was given, if one is still kept. */
  find(scope: Scope, intent: string, now: Date): Promise<string | null>;
  /**
   * Keeps the record id of a try that ended unanswered; one already kept for the intent stays (it is the try a
   * retry must meet: concurrent identical tries that all failed pair their retries with the first one kept).
   */
  remember(scope: Scope, intent: string, record: string, now: Date): Promise<void>;
  /** The intent was answered: an identical write from now on is a new one. */
  forget(intent: string, record: string): Promise<void>;
}

/** A keyless write under way: the record id its owner derives ids from, and whether it retries an unanswered try. */
export interface KeylessWrite {
  scope: Scope;
  intent: string;
  record: string;
  retry: boolean;
}

/**
 * A write that is not safe to repeat (a refund), sent without an Idempotency-Key, made safe to retry as Stripe's
 * clients make it: a try answered 5xx (or not at all, past the upstream timeout) may have been committed, so its
 * record id is kept under what identifies the intent (the API key, method, path and body), and the identical
 * request that follows is given the same record id: the owner derives the same refund id and meets the committed
 * refund instead of making a second one. A try that was answered (2xx or 4xx) keeps nothing, so an identical
 * request after a success is a new refund, as it always was.
 */
export class KeylessWrites {
  constructor(
    private readonly records: UnansweredRecords,
    private readonly clock: () => Date,
  ) {}

  async begin(scope: Scope, apiKeyId: string, request: KeyedRequest): Promise<KeylessWrite> {
    const intent = `unanswered:${createHash('sha256')
      .update(`${apiKeyId}\n${requestFingerprint(request.method, request.path, request.body)}`)
      .digest('base64url')}`;
    const kept = await this.records.find(scope, intent, this.clock());
    if (kept !== null) return { scope, intent, record: kept, retry: true };
    return { scope, intent, record: `keyless:${randomBytes(18).toString('base64url')}`, retry: false };
  }

  /** The client got an answer: what the try did is known to it, and an identical request is a new write. */
  async answered(write: KeylessWrite): Promise<void> {
    if (write.retry) await this.records.forget(write.intent, write.record);
  }

  /** No answer the client can trust (a 5xx, a timeout): the identical retry must meet this try. */
  async unanswered(write: KeylessWrite): Promise<void> {
    await this.records.remember(write.scope, write.intent, write.record, this.clock());
  }
}
