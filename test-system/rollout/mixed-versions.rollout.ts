import { describe, expect, it } from 'vitest';
import { soakTier } from '../soak/run';

// In the rollout tier of `npm test` (vitest project "rollout"): a cluster of two replicas of each service
// starts on the latest recorded release (releases.json; its bundles are built once per commit under
// ~/.cache/checkout-releases/), then, under two minutes of load, is upgraded to this code orders first, rolled back
// gateway first and upgraded again gateway first, one replica at a time: every contract between services sees an
// old and a new party, both ways round. The ledger is the rollout soak's (no request may fail, no event be lost, no
// payment applied twice) with a row per contract and the orders migration that runs meanwhile. The ten-minute run:
// `npm run soak -- --rollout --from previous --minutes 10` (docs/operations.md).

const SEED = 37;

describe('the two-minute mixed-version rollout', () => {
  it('When every service is upgraded from the previous release in both orders (and rolled back in between) under load, then no request fails, every cent and event is accounted for, and the migration finishes', async () => {
    // As in the same-version rollout, the first-attempt p99 ratio is printed, not asserted (a time).
    const { report, table, violated } = await soakTier(
      `mixed-version rollout ledger (2 min, 2 replicas, from the previous release, seed ${SEED})`,
      'mixed',
      { minutes: 2, rate: 2, seed: SEED, replicas: 2, rollout: true, from: 'previous', order: 'both' },
    );
    expect(violated, table).toEqual([]);
    // Every internal contract saw an old and a new party talk, each way round.
    const http = report.rows.filter((r) => r.label.endsWith('(internal HTTP)'));
    expect(http).toHaveLength(5);
    for (const row of http) expect(String(row.value), row.label).toMatch(/^old → new [1-9]\d*.*; new → old [1-9]/);
    // Longer than the tier's 10 minutes: 24 replicas replaced one at a time, each waiting to be ready, plus the
    // release's bundles on a cold cache (~25 s); 6-7 minutes on a quiet machine, more on a shared one.
  }, 1_500_000);
});
