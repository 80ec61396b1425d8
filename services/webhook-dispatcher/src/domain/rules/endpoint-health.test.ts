import { describe, expect, it } from 'vitest';
import { failureVerdict } from './endpoint-health';

const DAY = 24 * 3_600_000;
const at = new Date('2026-11-26T10:00:00.000Z');

describe('failureVerdict (D50)', () => {
  it('When the endpoint is gone or disabled, then a failure is not judged', () => {
    expect(failureVerdict(null, at, 3 * DAY)).toEqual({ kind: 'ignore' });
    const disabled = { reason: 'requested' as const, message: 'off', at };
    expect(failureVerdict({ disabled, failingSince: null }, at, 3 * DAY)).toEqual({ kind: 'ignore' });
  });

  it('When it is the first failure of a run, then the run starts; while short, it waits; once long, a success is looked for', () => {
    expect(failureVerdict({ disabled: null, failingSince: null }, at, 3 * DAY)).toEqual({ kind: 'start-run' });
    const recent = new Date(at.getTime() - DAY);
    expect(failureVerdict({ disabled: null, failingSince: recent }, at, 3 * DAY)).toEqual({ kind: 'wait' });
    const long = new Date(at.getTime() - 3 * DAY);
    expect(failureVerdict({ disabled: null, failingSince: long }, at, 3 * DAY)).toMatchObject({
      kind: 'check-success',
      since: long,
    });
  });

  it('When it is disabled for failing, then the reason says since when and for how many days', () => {
    const since = new Date(at.getTime() - 3.5 * DAY);
    expect(failureVerdict({ disabled: null, failingSince: since }, at, 3 * DAY)).toEqual({
      kind: 'check-success',
      since,
      disabled: {
        reason: 'failing',
        message: `Every attempt since ${since.toISOString()} failed (3.5 days); enable it again once it answers 2xx, then recover what it missed.`,
        at,
      },
    });
  });
});
