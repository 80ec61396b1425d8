// `npm run bench -- engine-start [--rounds=R]`: what a test broker's start costs, with and without the class-data
// archive (testkit/engines/src/class-archive.ts): one broker, and a three-broker cluster, each started R times per
// setting, interleaved, from the JVMs' launch to the engines' own readiness probe; the brokers' CPU is read from
// /proc at that moment. Needs only the cached Kafka jars (the archive is trained on the first run if missing).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provisionKafka, startLocalKafka, startLocalKafkaCluster, type LocalKafka } from '@checkout/engines';
import { sampleCpu } from './cpu';
import { formatColumns, median } from './load';

const SETTINGS = ['on', 'off'] as const;
const LAYOUTS = [1, 3] as const;

interface Trial {
  readyMs: number;
  cpuSeconds: number;
}

async function startOnce(libs: string, brokers: number): Promise<Trial> {
  const runDir = await mkdtemp(join(tmpdir(), 'checkout-bench-engine-start-'));
  const started = Date.now();
  let kafka: LocalKafka | undefined;
  try {
    kafka =
      brokers === 1
        ? await startLocalKafka({ libs, runDir, deadlineMs: 120_000 })
        : await startLocalKafkaCluster({ libs, runDir, deadlineMs: 150_000, count: brokers });
    return { readyMs: Date.now() - started, cpuSeconds: sampleCpu().get('kafka') ?? Number.NaN };
  } finally {
    await kafka?.stop();
    await rm(runDir, { recursive: true, force: true });
  }
}

export async function runEngineStartBench(options: { rounds: number }): Promise<void> {
  const libs = await provisionKafka({ log: (line) => process.stderr.write(`[engines] ${line}\n`) });
  const trials = new Map<string, Trial[]>();
  for (let round = 0; round < options.rounds; round++) {
    // Interleaved, and the order flipped each round, so neither setting always runs on a warmer machine.
    const settings = round % 2 === 0 ? SETTINGS : [...SETTINGS].reverse();
    for (const brokers of LAYOUTS)
      for (const setting of settings) {
        process.env.CHECKOUT_CLASS_ARCHIVE = setting;
        const trial = await startOnce(libs, brokers);
        const key = `${brokers}:${setting}`;
        trials.set(key, [...(trials.get(key) ?? []), trial]);
        process.stderr.write(`[bench] ${brokers} broker(s), archive ${setting}: ready in ${trial.readyMs} ms\n`);
      }
  }
  delete process.env.CHECKOUT_CLASS_ARCHIVE;
  const lines = LAYOUTS.flatMap((brokers) => {
    const of = (setting: string) => trials.get(`${brokers}:${setting}`) ?? [];
    const ready = (setting: string) => median(of(setting).map((t) => t.readyMs));
    const cpu = (setting: string) => median(of(setting).map((t) => t.cpuSeconds));
    return SETTINGS.map((setting) => [
      `${brokers} broker${brokers === 1 ? '' : 's'}`,
      setting,
      ready(setting).toFixed(0),
      cpu(setting).toFixed(2),
      (ready(setting) / ready('off')).toFixed(2),
      (cpu(setting) / cpu('off')).toFixed(2),
    ]);
  });
  console.log(`test broker start, class-data archive on and off, ${options.rounds} rounds interleaved (p50)`);
  console.log(
    formatColumns(
      ['layout', 'archive', 'ready ms', 'broker CPU-s at ready', 'ready ratio to off', 'CPU ratio to off'],
      lines,
    ),
  );
}
