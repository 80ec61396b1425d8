// `npm run soak -- --minutes N [--rate R] [--seed S] [--kill-every SECONDS] [--replicas N] [--rollout [--from <release>
// [--order orders-first|gateway-first|both]]]`: a chaos soak with a money ledger. Starts engines and the four services
// of its own, runs merchants' journeys at a steady rate while a chaos loop SIGKILLs a random service every ~20 s and
// restarts the broker and the database once each, drains, reconciles and prints the ledger. Exit status 0 only when
// every check is 0; 1 on a violation; 2 when the soak itself could not run. What "inside an outage window" means:
// test-system/soak/chaos.ts (and the README).
import { fromFlag } from './lib/releases';
import { ROLLOUT_ORDERS, type RolloutOrder } from '../test-system/soak/rollout';
import { runSoak } from '../test-system/soak/run';

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return fallback;
  const raw = args[i]?.includes('=') ? args[i]?.split('=')[1] : args[i + 1];
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`--${name} needs a positive number (got ${raw ?? 'nothing'})`);
    process.exit(2);
  }
  return value;
}

const minutes = option('minutes', 1);
const rate = option('rate', 2);
const seed = Math.floor(option('seed', Date.now() % 1_000_000_000));
const killEverySeconds = option('kill-every', 20);
// `--rollout` replaces every replica of every service under load, then restarts the three brokers one at
// a time, instead of the chaos; `--replicas N` runs N processes of each service behind HAProxy (2 with --rollout).
const rollout = args.includes('--rollout');
const replicas = Math.floor(option('replicas', rollout ? 2 : 1));
// `--rollout --from <release>` starts the cluster on that release (`previous`: the latest recorded one)
// and upgrades it to this code service by service under load, in `--order` (default both: orders first, a
// rollback, then gateway first).
let from: string | undefined;
let order: RolloutOrder = 'both';
try {
  from = fromFlag(args);
  const i = args.findIndex((a) => a === '--order' || a.startsWith('--order='));
  if (i >= 0) {
    const value = args[i]?.includes('=') ? args[i]?.split('=')[1] : args[i + 1];
    if (!ROLLOUT_ORDERS.includes(value as RolloutOrder))
      throw new Error(`--order needs one of ${ROLLOUT_ORDERS.join(', ')} (got ${value ?? 'nothing'})`);
    order = value as RolloutOrder;
  }
  if (from !== undefined && !rollout) throw new Error('--from needs --rollout');
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
const started = Date.now();
const log = (line: string) => process.stderr.write(`[soak +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);

runSoak({
  minutes,
  rate,
  seed,
  killEveryMs: killEverySeconds * 1000,
  replicas,
  rollout,
  ...(from !== undefined && { from, order }),
  log,
}).then(
  ({ report, table }) => {
    const mode = rollout
      ? from !== undefined
        ? `a mixed-version rollout of ${replicas} replicas of each service from ${from} (${order})`
        : `a rolling deploy of ${replicas} replicas of each service and of 3 brokers`
      : `${replicas > 1 ? `${replicas} replicas, ` : ''}a kill every ${killEverySeconds} s`;
    console.log(
      `\nsoak: ${minutes} min, ${rate} journeys/s, ${mode}, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(0)} s in all\n${table}`,
    );
    process.exit(report.violations === 0 ? 0 : 1);
  },
  (err: unknown) => {
    console.error(`soak could not run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(2);
  },
);
