import type { AttemptRecord, DeliveryDocument } from '../../store/delivery.document';
import { nextAttempt, parseRetryAfter } from './retry-policy';

// What follows from one attempt (D31, D40, D50), as pure functions: the sender says what happened, these say what
// the delivery becomes. The engine (engine/attempts.ts) writes it.

/**
 * signing_failed: nothing was sent, the organization's signing secret could not be used (malformed, D35);
 * endpoint_unavailable: nothing was sent, the delivery's webhook endpoint was disabled or deleted meanwhile (D50).
 */
export type SendOutcomeKind =
  | 'success'
  | 'http_error'
  | 'redirect'
  | 'timeout'
  | 'refused'
  | 'network'
  | 'invalid_url'
  | 'signing_failed'
  | 'endpoint_unavailable';

/** One attempt as the sender (or a rule that kept it from being sent) reports it. */
export interface SendResult {
  kind: SendOutcomeKind;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseSnippet: string | null;
  /** The Retry-After header of a 429 or 503 answer, as sent (the retry policy interprets it). */
  retryAfter?: string;
}

/** The delivery's next state after an attempt, written by one conditional update naming that attempt. */
export interface AttemptOutcome {
  record: AttemptRecord;
  status: DeliveryDocument['status'];
  nextAttemptAt: Date | null;
  /** Until when the retry tier (or nobody, for finished deliveries) holds it. */
  lockedUntil: Date;
  deadLetterPending: boolean;
}

export interface RetrySchedule {
  delaysMs: readonly number[];
  maxAttempts: number;
  /** How long a delivery waiting in a retry tier is left alone beyond its due time. */
  claimTtlMs: number;
}

/** A result for an attempt not sent at all (nothing reached the merchant's server). */
export function notSentResult(kind: 'signing_failed' | 'endpoint_unavailable', error: string): SendResult {
  return { kind, ok: false, statusCode: null, durationMs: 0, error, responseSnippet: null };
}

/**
 * What attempt `attempt` (started at `started`, over at `finished`) makes of its delivery: succeeded on a 2xx;
 * otherwise pending until the next attempt of the schedule (a Retry-After lengthening the wait, D40), or failed with
 * its dead letter owed once the attempts run out. An attempt left unsent because its endpoint is gone (D50) fails
 * the delivery at once, with no retry and no dead letter: no failure of the merchant's server to park, and a
 * recovery once the endpoint is enabled again sends it.
 */
export function attemptOutcome(input: {
  result: SendResult;
  attempt: number;
  started: Date;
  finished: Date;
  schedule: RetrySchedule;
  rng: () => number;
}): AttemptOutcome {
  const { result, attempt, started, finished, schedule } = input;
  const record: AttemptRecord = {
    attempt,
    at: started,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error: result.error,
    responseSnippet: result.responseSnippet,
  };
  const endpointGone = result.kind === 'endpoint_unavailable';
  const decision =
    result.ok || endpointGone
      ? null
      : nextAttempt({
          attempt,
          now: finished,
          delaysMs: schedule.delaysMs,
          maxAttempts: schedule.maxAttempts,
          rng: input.rng,
          retryAfterMs: parseRetryAfter(result.retryAfter, finished),
        });
  const retryAt = decision && 'at' in decision ? decision.at : null;
  return {
    record,
    status: result.ok ? 'succeeded' : retryAt ? 'pending' : 'failed',
    nextAttemptAt: retryAt,
    // While its retry waits in a tier, the sweep leaves it alone until well after it is due.
    lockedUntil: retryAt ? new Date(retryAt.getTime() + schedule.claimTtlMs) : finished,
    deadLetterPending: !result.ok && !retryAt && !endpointGone,
  };
}
