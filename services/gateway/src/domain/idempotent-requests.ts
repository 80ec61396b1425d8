import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/contracts';
import type { BeginResult, StoredResponse } from '../store/idempotency.store';
import { idempotencyKeyProblem, idempotencyRecordId, requestFingerprint } from './idempotency';

/** The records D42 keeps: which request holds a key, and the answer it got. */
export interface IdempotencyRecords {
  begin(scope: Scope, input: { id: string; apiKeyId: string; fingerprint: string; now: Date }): Promise<BeginResult>;
  /** Keeps the first response (status below 500) for replays. */
  complete(scope: Scope, id: string, token: string, response: StoredResponse, now: Date): Promise<void>;
  /**
   * Frees the key after a 5xx or a crash of the handler, so the client may retry with it. The record stays, its lock
   * lapsed, so the key's life (createdAt, expiresAt) outlasts the retry; a gateway of the release before, which
   * deleted it, reads it as abandoned and reclaims it as it always did.
   */
  release(id: string, token: string, now: Date): Promise<void>;
}

/** A key this request holds: only it may keep its answer or free the key (the token names it). */
export interface HeldKey {
  scope: Scope;
  /** The record's id, which the owner is told (INTERNAL_API_HEADERS.idempotencyRecord). */
  id: string;
  token: string;
  /**
   * When the key's life began (INTERNAL_API_HEADERS.idempotencySince): a retry after a 5xx keeps it, a use after the
   * key expired starts a new one, so an owner never answers a reused key with what it made a day before (D42).
   */
  since: Date;
}

/** What a request with an Idempotency-Key does: run, holding the key, or answer as the key's first request was. */
export type Claim = { kind: 'run'; held: HeldKey } | { kind: 'replay'; response: StoredResponse };

/** The request a key is claimed for, as D42 compares them. */
export interface KeyedRequest {
  method: string;
  path: string;
  body: unknown;
}

/**
 * D42 for the public API's POSTs: claim a key (a malformed key, a key reused for another request or still held
 * by a running one is refused with its code), keep the answer the holder got, or free the key for a retry.
 */
export class IdempotentRequests {
  constructor(
    private readonly records: IdempotencyRecords,
    private readonly clock: () => Date,
  ) {}

  async claim(scope: Scope, apiKeyId: string, key: string, request: KeyedRequest): Promise<Claim> {
    const problem = idempotencyKeyProblem(key);
    if (problem)
      throw new DomainError('INVALID_REQUEST', problem, { details: [{ path: 'Idempotency-Key', message: problem }] });
    const id = idempotencyRecordId(apiKeyId, key);
    const begun = await this.records.begin(scope, {
      id,
      apiKeyId,
      fingerprint: requestFingerprint(request.method, request.path, request.body),
      now: this.clock(),
    });
    if (begun.kind === 'reused') {
      throw new DomainError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      );
    }
    if (begun.kind === 'in_use') {
      throw new DomainError(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
        { retryAfterSeconds: 1 },
      );
    }
    if (begun.kind === 'replay') return begun;
    return { kind: 'run', held: { scope, id, token: begun.token, since: begun.since } };
  }

  /** Keeps the holder's answer (a status below 500) for replays; the key is answered from now on. */
  async keep(held: HeldKey, response: StoredResponse): Promise<void> {
    await this.records.complete(held.scope, held.id, held.token, response, this.clock());
  }

  /** Frees the key after a 5xx or a crash, so that the client may retry with it. */
  async release(held: HeldKey): Promise<void> {
    await this.records.release(held.id, held.token, this.clock());
  }
}
