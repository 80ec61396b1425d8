// `npm run bench -- replacement [--base=<revision>] [--rounds=R]`: what one step of a rolling deploy costs, per
// service: the local cluster (2 replicas of each behind HAProxy, the rollout tier's) replaces every replica of each
// service R times (3), one at a time as a Deployment does, and times each new replica from its process's start
// to ready and in the load balancer's rotation, and each replaced one from SIGTERM to its exit. With --base, every
// round also rolls each service onto that revision's bundles (built once per commit, as a release's are) and back,
// in alternating order, so both builds are measured on the same cluster, interleaved.
import { SERVICES, type ServiceName } from '../../scripts/lib/process-stack';
import type { ReplacementStep } from '../../scripts/lib/cluster-replicas';
import { startClusterStack } from '../../scripts/lib/cluster-stack';
import { ensureReleaseBundles, resolveRelease, type ServiceBuild } from '../../scripts/lib/releases';
import type { Engines } from '@checkout/engines';
import { formatColumns, median } from './load';
import { benchStackBasics } from './stack';

export async function runReplacementBench(
  engines: Engines,
  options: { rounds: number; base: string | undefined },
): Promise<void> {
  const log = (line: string) => process.stderr.write(`[cluster] ${line}\n`);
  const cluster = await startClusterStack({
    ...benchStackBasics(engines, 'bench'),
    replicas: 2,
    replicationFactor: engines.kafkaReplicationFactor,
    minInsyncReplicas: engines.kafkaCluster?.minInsyncReplicas ?? 1,
    log,
  });
  const steps: { build: string; step: ReplacementStep }[] = [];
  try {
    const base: ServiceBuild | undefined =
      options.base === undefined ? undefined : await ensureReleaseBundles(resolveRelease(options.base), log);
    const builds: { label: string; build: ServiceBuild }[] = [
      { label: 'head', build: cluster.current },
      ...(base ? [{ label: `base ${options.base}`, build: base }] : []),
    ];
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const service of SERVICES)
        for (const { label, build } of order) {
          await cluster.rollOut(service, (step) => steps.push({ build: label, step }), build);
          await cluster.retirements();
          log(`round ${round + 1}: ${service} on ${label}`);
        }
    }
    console.log(report(steps, builds[0]?.label ?? 'head', options.rounds));
  } finally {
    await cluster.stop();
  }
}

function report(steps: readonly { build: string; step: ReplacementStep }[], head: string, rounds: number): string {
  const labels = [...new Set(steps.map((s) => s.build))];
  const of = (service: ServiceName, label: string) =>
    steps.filter((s) => s.step.service === service && s.build === label).map((s) => s.step);
  const lines = SERVICES.flatMap((service) =>
    labels.map((label) => {
      const ready = of(service, label).map((s) => s.readyMs);
      const headReady = median(of(service, head).map((s) => s.readyMs));
      return [
        service,
        label,
        String(ready.length),
        median(ready).toFixed(0),
        Math.max(...ready).toFixed(0),
        median(of(service, label).map((s) => s.stopMs)).toFixed(0),
        label === head ? '1.00' : (headReady / median(ready)).toFixed(2),
      ];
    }),
  );
  return [
    `rolling steps, 2 replicas of each service, ${rounds} rounds (ms; ratio: head's p50 ready over this build's)`,
    formatColumns(['service', 'build', 'steps', 'ready p50', 'ready max', 'exit p50', 'head ready / this'], lines),
  ].join('\n');
}
