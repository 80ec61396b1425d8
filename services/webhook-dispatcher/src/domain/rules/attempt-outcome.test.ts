import { describe, expect, it } from 'vitest';
import { attemptOutcome, notSentResult, type SendResult } from './attempt-outcome';

const started = new Date('2026-11-26T10:00:00.000Z');
const finished = new Date('2026-11-26T10:00:01.000Z');
const schedule = { delaysMs: [10_000, 60_000], maxAttempts: 3, claimTtlMs: 30_000 };
const failure: SendResult = {
  kind: 'http_error',
  ok: false,
  statusCode: 500,
  durationMs: 20,
  error: 'HTTP 500',
  responseSnippet: 'oops',
};

function outcomeOf(result: SendResult, attempt: number) {
  return attemptOutcome({ result, attempt, started, finished, schedule, rng: () => 0.5 });
}

describe('attemptOutcome (D31, D40, D50)', () => {
  it('When the merchant answers 2xx, then the delivery succeeds, nobody holds it and no dead letter is owed', () => {
    const outcome = outcomeOf({ ...failure, kind: 'success', ok: true, statusCode: 200, error: null }, 1);
    expect(outcome).toMatchObject({ status: 'succeeded', nextAttemptAt: null, deadLetterPending: false });
    expect(outcome.lockedUntil).toEqual(finished);
    expect(outcome.record).toEqual({
      attempt: 1,
      at: started,
      statusCode: 200,
      durationMs: 20,
      error: null,
      responseSnippet: 'oops',
    });
  });

  it('When an attempt before the last fails, then the delivery waits for its retry, held until after it is due', () => {
    const outcome = outcomeOf(failure, 1);
    expect(outcome.status).toBe('pending');
    expect(outcome.nextAttemptAt).toEqual(new Date(finished.getTime() + 10_000));
    expect(outcome.lockedUntil).toEqual(new Date(finished.getTime() + 10_000 + 30_000));
    expect(outcome.deadLetterPending).toBe(false);
  });

  it('When the last attempt fails, then the delivery fails and its dead letter is owed', () => {
    expect(outcomeOf(failure, 3)).toMatchObject({ status: 'failed', nextAttemptAt: null, deadLetterPending: true });
  });

  it('When the endpoint is gone, then the delivery fails at once with no retry and no dead letter', () => {
    const outcome = outcomeOf(notSentResult('endpoint_unavailable', 'not sent: the endpoint is disabled'), 1);
    expect(outcome).toMatchObject({ status: 'failed', nextAttemptAt: null, deadLetterPending: false });
    expect(outcome.record).toMatchObject({
      statusCode: null,
      durationMs: 0,
      error: 'not sent: the endpoint is disabled',
    });
  });
});
