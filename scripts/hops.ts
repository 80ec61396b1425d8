// `npm run hops [-- --at <git revision>] [--list] [--run]`: a card payment's call hops and files, counted on the
// static call graph (scripts/lib/call-hops.ts; what counts: docs/engineering.md, "A payment, step by step"). With
// --at, the same walk runs on that revision's sources (extracted to a temporary directory), so two versions are
// measured by one counter; --list prints every function counted; --run also runs one payment on real engines and
// counts the functions that ran (scripts/lib/payment-trace.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startEngines } from '@checkout/engines';
import { byPackage, paymentHops } from './lib/payment-hops';
import { tracePayment } from './lib/payment-trace';
import type { Hop } from './lib/call-hops';

const { values } = parseArgs({
  options: {
    at: { type: 'string' },
    list: { type: 'boolean', default: false },
    run: { type: 'boolean', default: false },
  },
});
const repo = resolve(import.meta.dirname, '..');

/** `revision`'s tree in a temporary directory, its node_modules linked to this checkout's (workspaces to its own). */
function checkout(revision: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hops-'));
  const archive = execFileSync('git', ['archive', revision], { cwd: repo, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  mkdirSync(join(dir, 'node_modules', '@checkout'), { recursive: true });
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name !== '@checkout') symlinkSync(join(repo, 'node_modules', name), join(dir, 'node_modules', name));
  }
  for (const name of readdirSync(join(repo, 'node_modules', '@checkout'))) {
    for (const parent of ['libs', 'services', '.']) {
      const target = join(dir, parent, name);
      try {
        readdirSync(target);
        symlinkSync(target, join(dir, 'node_modules', '@checkout', name));
        break;
      } catch {
        // not in this folder
      }
    }
  }
  return dir;
}

const root = values.at ? checkout(values.at) : repo;
try {
  const result = paymentHops(root);
  const label = values.at ?? 'working tree';
  const line = (what: string, r: { hops: readonly Hop[]; files: readonly string[]; calls?: number }) =>
    console.log(
      `${what.padEnd(62)}${String(r.hops.length).padStart(6)}${String(r.files.length).padStart(7)}${String(r.calls ?? '').padStart(7)}`,
    );
  console.log(`A test-mode card payment on the hosted page, static call graph (${label})`);
  console.log(`${''.padEnd(62)}${'hops'.padStart(6)}${'files'.padStart(7)}`);
  line('gateway → Kafka send of checkout.session.completed', result.toKafka);
  line('gateway → webhook POST (the walk above + the dispatcher)', result.toWebhook);
  line('sessions part: its hosted-page handler → Kafka send', result.sessions);
  line('dispatcher part: consumer → webhook POST', result.dispatcher);
  console.log('\nsessions part by package');
  for (const [pkg, n] of byPackage(result.sessions.hops))
    console.log(`  ${pkg.padEnd(60)}${String(n.hops).padStart(6)}${String(n.files).padStart(7)}`);
  if (values.list) {
    for (const [name, r] of Object.entries({
      toKafka: result.toKafka,
      sessions: result.sessions,
      dispatcher: result.dispatcher,
    })) {
      console.log(`\n${name}`);
      for (const hop of r.hops) console.log(`  ${hop.file}:${hop.line}  ${hop.name}`);
    }
  }
  if (values.run) {
    const engines = await startEngines();
    try {
      const ran = await tracePayment(root, engines);
      console.log(`\nThe same payment as it runs (${label}; orders and sessions in this process, the POST alone):`);
      console.log(
        `${'functions that ran, calls'.padEnd(62)}${'hops'.padStart(6)}${'files'.padStart(7)}${'calls'.padStart(7)}`,
      );
      const packages = [...new Set(ran.map((f) => f.file.split('/').slice(0, 2).join('/')))].sort();
      for (const pkg of ['all', ...packages]) {
        const of = ran.filter((f) => pkg === 'all' || f.file.startsWith(`${pkg}/`));
        const files = new Set(of.map((f) => f.file)).size;
        const calls = of.reduce((sum, f) => sum + f.calls, 0);
        console.log(
          `  ${pkg.padEnd(60)}${String(of.length).padStart(6)}${String(files).padStart(7)}${String(calls).padStart(7)}`,
        );
      }
      if (values.list) for (const f of ran) console.log(`  ${f.file}  ${f.name} ×${f.calls}`);
    } finally {
      await engines.stop();
    }
  }
} finally {
  if (values.at) rmSync(root, { recursive: true, force: true });
}
