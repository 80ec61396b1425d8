import { configDefaults, defineConfig } from 'vitest/config';

// Six tiers (scripts/test.ts runs some side by side): unit tests need no engines; integration
// (component) and e2e tests get real Kafka and MongoDB-compatible engines from testkit/testing's global setup (or
// from scripts/test.ts, which starts them once for a whole `npm test` run and passes them down in KAFKA_BROKERS /
// MONGODB_URL). The integration tests that restart that shared broker form a group of their own, chaos, run alone.
// Last, the soak (one minute of load and chaos on engines and service processes of its own, then its money ledger)
// and the rollout tier (rolling deploys on clusters of their own). docs/testing.md says what each covers.
const CHAOS = [
  'libs/kafka/test/broker-restart.test.ts',
  'libs/kafka/test/three-brokers.test.ts',
  'libs/kafka/test/broker-stall.test.ts',
  'services/webhook-dispatcher/test/component/broker-restart.test.ts',
  // Loads the shared engines with one merchant's 80 % of the traffic and times the others' webhooks: alone.
  'test-e2e/src/hot-merchant.chaos.test.ts',
];
/**
 * What every engine-backed tier shares: the engines, and three files at once on 2 cores. Their files mostly wait
 * (on group joins, engine restarts, deadlines): with two at once the integration and e2e tiers kept the cores 67 %
 * busy and took 327 s; with three, 269 s and no deadline missed.
 */
const ON_ENGINES = { environment: 'node', globalSetup: ['testkit/testing/src/global-setup.ts'], maxWorkers: 3 };
/** Integration and chaos: one service (or one library) per file. */
const COMPONENT_TIMEOUTS = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'libs/*/src/**/*.test.ts',
            'services/*/src/**/*.test.ts',
            'testkit/*/src/**/*.test.ts',
            'scripts/**/*.test.ts',
            'test-system/**/*.test.ts',
            'bench/src/**/*.test.ts',
            'deploy/observability/**/*.test.ts',
          ],
          environment: 'node',
          // Two files at once: vitest's default on 2 cores is one (the cores less one), which left the unit tier
          // running one file at a time beside the typecheck. Files share their worker's modules (no isolation): half
          // the tier's CPU was importing the same modules again for each file (58 s and 104 CPU-s isolated, 31 s and
          // 53 CPU-s not). That holds while no unit test mocks a module or changes process-wide state; the tier
          // passes in shuffled orders (--sequence.shuffle).
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: [
            'libs/*/test/**/*.test.ts',
            'services/*/test/**/*.test.ts',
            'testkit/*/test/**/*.test.ts',
            'deploy/test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...CHAOS],
          ...ON_ENGINES,
          ...COMPONENT_TIMEOUTS,
        },
      },
      {
        test: {
          // Tests that restart or stall the broker every test file shares run on their own, after the integration
          // tier, one file at a time, so that no other file sees the outage (tests that stop engines of their own
          // stay where they are).
          name: 'chaos',
          sequence: { groupOrder: 2 },
          include: CHAOS,
          ...ON_ENGINES,
          maxWorkers: 1,
          ...COMPONENT_TIMEOUTS,
        },
      },
      {
        test: {
          name: 'e2e',
          sequence: { groupOrder: 3 },
          include: ['test-e2e/src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...CHAOS],
          ...ON_ENGINES,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          // Starts and stops its own engines and stack (it restarts them), so it needs no global setup; alone on
          // the 2 cores. ~2.5 min when green; the timeout is for a stack that does not recover, so that the run
          // still ends with its ledger (recovery, step and drain deadlines all run out first) instead of a timeout.
          name: 'soak',
          sequence: { groupOrder: 4 },
          include: ['test-system/soak/*.soak.ts'],
          environment: 'node',
          maxWorkers: 1,
          testTimeout: 480_000,
        },
      },
      {
        test: {
          // Each file on engines and a cluster of its own; `npm test` runs the short ones after the soak and
          // release-day last, alone (scripts/test.ts, PHASES). release-day.rollout.ts:
          // 2 replicas behind HAProxy on 3 brokers, started on the latest recorded release, upgraded to this code in
          // both orders, then a same-version rolling deploy and each broker's restart, under load (32 replicas
          // replaced; it sets a longer timeout of its own). three-replicas.rollout.ts: what must happen once, and
          // what each replica keeps to itself, on 3 replicas of every service, ~45 s; edge.rollout.ts: the edge
          // through HAProxy as directly (413 for 2 MB bodies, the operator-token limit), ~20 s.
          name: 'rollout',
          sequence: { groupOrder: 5 },
          include: ['test-system/rollout/*.rollout.ts'],
          environment: 'node',
          // One file at a time: two clusters of three brokers side by side starve each other's group coordinators
          // on 2 cores (a consumer group was left with uncommitted messages after a broker restart).
          maxWorkers: 1,
          testTimeout: 600_000,
        },
      },
    ],
  },
});
