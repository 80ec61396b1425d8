import { describe, expect, it } from 'vitest';
import { soakTier } from './run';

// In the rollout tier of `npm test` (vitest project "rollout"): a cluster of two replicas of each service on three
// brokers starts on the latest recorded release (releases.json; its bundles are built once per commit under
// ~/.cache/checkout-releases/), then, under two minutes of load, is upgraded to this code orders first, rolled back
// gateway first and upgraded again gateway first, one replica at a time (maxSurge 1, maxUnavailable 0): every
// contract between services sees an old and a new party, both ways round. Then each broker restarts in turn, as a
// Kafka upgrade does. Nothing is down at any moment, so the ledger has no outage windows: a single 5xx or unanswered
// request is a violation, as is a lost event, a payment applied twice or a delivery id used twice; it gains a row per
// contract and for the orders migration that runs meanwhile. One run proves what a same-version rolling deploy of
// the services and one of the brokers would: every replica of every service is replaced three times over.
// The ten-minute runs: `npm run soak -- --rollout --from previous --minutes 10`, and the same-version
// `npm run soak -- --rollout --replicas 2 --minutes 10` (docs/operations.md).

const SEED = 37;

describe('the two-minute rolling deploy, from the previous release', () => {
  it('When every service is upgraded from the previous release in both orders (rolled back in between), then every broker restarted, under load, then no request fails, every cent and event is accounted for, and the migration finishes', async () => {
    // The first-attempt p99 during the rollout against the steady state's is printed, not asserted (a time): the
    // ten-minute command is where its ≤ 3× target is measured.
    const { report, table, violated } = await soakTier(
      `rollout ledger (2 min, 2 replicas, 3 brokers, from the previous release, seed ${SEED})`,
      'rollout',
      { minutes: 2, rate: 2, seed: SEED, replicas: 2, rollout: true, from: 'previous', order: 'both' },
    );
    expect(violated, table).toEqual([]);
    // Every internal contract saw an old and a new party talk, each way round.
    const http = report.rows.filter((r) => r.label.endsWith('(internal HTTP)'));
    expect(http).toHaveLength(5);
    for (const row of http) expect(String(row.value), row.label).toMatch(/^old → new [1-9]\d*.*; new → old [1-9]/);
    // Every broker went down and came back, with every ISR whole again.
    const brokerSteps = report.rows.filter((r) => /^ {2}broker \d restart$/.test(r.label));
    expect(brokerSteps, table).toHaveLength(3);
    // Longer than the tier's 10 minutes: 24 replicas replaced one at a time, each waiting to be ready, three broker
    // restarts, plus the release's bundles on a cold cache (~25 s); 5-6 minutes on a quiet machine.
  }, 1_500_000);
});
