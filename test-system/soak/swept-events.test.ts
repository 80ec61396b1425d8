import { describe, expect, it } from 'vitest';
import { LEFT_BEHIND_MS, SWEPT_INSIDE, SWEPT_OUTSIDE, SWEPT_PREVIOUS_RELEASE, sweptEventRows } from './swept-events';

const row = (rows: { label: string; value: number | string; check: boolean }[], label: string) =>
  rows.find((r) => r.label === label);

describe('sweptEventRows', () => {
  const kill = { what: 'kill orders', start: 100_000, end: 100_000 };
  const outage = { what: 'database restart', start: 200_000, end: 230_000 };

  it('When an event the sweep published was written just before a kill or during an outage, then a disruption explains it; otherwise it is a violation', () => {
    const writtenAt = [
      kill.start - LEFT_BEHIND_MS,
      kill.start,
      outage.start + 5_000,
      outage.end,
      50_000,
      kill.start + 1,
    ];
    const { rows, examples } = sweptEventRows(writtenAt, [kill, outage]);
    expect(row(rows, SWEPT_OUTSIDE)).toEqual({ label: SWEPT_OUTSIDE, value: 2, check: true });
    expect(row(rows, SWEPT_INSIDE)).toEqual({ label: SWEPT_INSIDE, value: 4, check: false });
    expect(examples).toEqual([
      `${SWEPT_OUTSIDE}: an event written at ${new Date(50_000).toISOString()}`,
      `${SWEPT_OUTSIDE}: an event written at ${new Date(kill.start + 1).toISOString()}`,
    ]);
  });

  it('When the run mixes versions, then what was written before the release left is counted apart, not checked, and what came after is checked', () => {
    const releaseGone = 300_000;
    const { rows } = sweptEventRows([1, releaseGone - 1, releaseGone, releaseGone + 1], [], {
      checkedFrom: releaseGone,
    });
    expect(row(rows, SWEPT_PREVIOUS_RELEASE)).toEqual({ label: SWEPT_PREVIOUS_RELEASE, value: 2, check: false });
    expect(row(rows, SWEPT_OUTSIDE)).toEqual({ label: SWEPT_OUTSIDE, value: 2, check: true });
  });

  it('When the run is of one version, then there is no row for a previous release', () => {
    expect(row(sweptEventRows([], []).rows, SWEPT_PREVIOUS_RELEASE)).toBeUndefined();
  });
});
