// npm run profile-summary -- <file.cpuprofile | dir>... [--top=N] [--per=OPERATIONS]: what V8 CPU profiles spent
// their time on, without a browser. A directory is read for every .cpuprofile under it (CPU_PROFILE_DIR=<dir> on a
// bench writes <dir>/<service>/*.cpuprofile). For each profile: its CPU time (idle excluded), its layers (the HTTP
// server, the HTTP client, MongoDB's driver, Kafka's, zod, this repository's code…), and the N largest
// owners (scripts/lib/cpu-profile.ts) by the frame that ran, by the nearest package up the stack (Node's streams,
// sockets and timers charged to the package that called them), and the N largest functions. --per=K divides every
// figure by K, e.g. the requests a bench printed, for ms per request.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleModules,
  byLayer,
  summarizeProfile,
  topLines,
  type BundleModules,
  type CpuProfile,
} from './lib/cpu-profile';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  Number(args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const top = option('top', 12);
const per = option('per', 1);
const inputs = args.filter((a) => !a.startsWith('--'));
if (inputs.length === 0) {
  console.error('usage: npm run profile-summary -- <file.cpuprofile | dir>... [--top=N] [--per=OPERATIONS]');
  process.exit(2);
}

function profilesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort()
    .map((name) => join(path, name));
}

const bundles = new Map<string, BundleModules | undefined>();
const modulesOf = (url: string): BundleModules | undefined => {
  if (!bundles.has(url)) {
    const path = url.startsWith('file://') ? fileURLToPath(url) : url;
    bundles.set(url, existsSync(path) ? bundleModules(readFileSync(path, 'utf8')) : undefined);
  }
  return bundles.get(url);
};

const unit = per === 1 ? 'ms' : `ms per operation (÷ ${per})`;
for (const input of inputs) {
  for (const file of profilesUnder(input)) {
    const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, modulesOf);
    const scale = (breakdown: Map<string, number>) => new Map([...breakdown].map(([k, ms]) => [k, ms / per]));
    const total = summary.cpuMs / per;
    console.log(`\n${relative(process.cwd(), file)}: ${total.toFixed(per === 1 ? 0 : 3)} ${unit} of CPU sampled`);
    for (const [title, breakdown] of [
      ['by layer', byLayer(summary.nearestPackage)],
      ['by the frame that ran', summary.self],
      ['by the nearest package up the stack', summary.nearestPackage],
      ['functions', summary.functions],
    ] as const) {
      console.log(`  ${title}:`);
      for (const line of topLines(scale(breakdown), total, title === 'by layer' ? breakdown.size : top))
        console.log(`    ${line}`);
    }
  }
}
