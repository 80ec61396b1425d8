// Bundles each service's main.ts, and the operational scripts, into dist/<name>.mjs: the image then runs plain
// JavaScript with `node` (no tsx, no TypeScript compiler, no devDependencies in the runtime image; faster start).
//   npx tsx deploy/scripts/bundle.ts [--outdir=dist]
// Workspace packages (@checkout/*) are bundled in; every other bare import (koa, kafkajs, mongodb, pino, …)
// stays external and is resolved from the production node_modules that the Dockerfile installs with `npm ci`.
// The build (version and commit, libs/config's buildInfo) is stamped in: from git and releases.json, or, where
// there is no .git (the image's build context), from BUILD_COMMIT (deploy/scripts/build-image.sh passes it).
import { mkdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { describeBuild, readReleases, type BuildInfo } from '@checkout/config';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The services the image can run: SERVICE=<name> runs dist/<name>.mjs. Names equal the services/ directories. */
export const SERVICES = ['gateway', 'orders', 'sessions', 'webhook-dispatcher'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Operational one-shot scripts shipped in the same image (Kubernetes Jobs, SRE tasks). */
export const SCRIPTS = ['create-topics', 'create-indexes', 'replay-dead-letter', 'generate-secrets'] as const;

/** The entry points of the checkout at `root`: the services, and the scripts unless `servicesOnly`. */
export function entryPoints(root = REPO_ROOT, servicesOnly = false): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const service of SERVICES) entries[service] = join(root, 'services', service, 'src', 'main.ts');
  if (!servicesOnly) for (const script of SCRIPTS) entries[script] = join(root, 'deploy', 'scripts', `${script}.ts`);
  return entries;
}

/** The build of this checkout: git and releases.json, or BUILD_COMMIT where there is no .git. */
export function currentBuild(env: Record<string, string | undefined> = process.env): BuildInfo {
  const commit = env.BUILD_COMMIT?.trim() || undefined;
  try {
    return describeBuild(REPO_ROOT, commit);
  } catch {
    const latest = readReleases(REPO_ROOT).at(-1)?.version ?? '0.0.0';
    return { version: `${latest}+unknown`, commit: 'unknown' };
  }
}

/** Bare specifiers stay external, except the workspace's own packages, which are bundled from source. */
const externalThirdParty: Plugin = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (isAbsolute(args.path) || args.path.startsWith('@checkout/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

export interface BundleResult {
  outdir: string;
  /** Per output file name (e.g. gateway.mjs), the third-party packages it imports at run time. */
  externals: Record<string, string[]>;
}

/** Package name of a bare import: `pino/file` → `pino`, `@koa/router` → `@koa/router`, `node:fs` → null. */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? null);
}

export interface BundleOptions {
  /** Another checkout of this repository (a release's, scripts/lib/releases.ts); its services only. */
  root?: string;
  /** The build stamped in; default: this checkout's (currentBuild). */
  buildInfo?: BuildInfo;
}

export async function bundle(outdir = join(REPO_ROOT, 'dist'), options: BundleOptions = {}): Promise<BundleResult> {
  const root = options.root ?? REPO_ROOT;
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: entryPoints(root, options.root !== undefined),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Node 20.19 is the oldest runtime the project supports (package.json engines); the image runs Node 22.
    target: 'node20.19',
    sourcemap: 'linked',
    splitting: false,
    metafile: true,
    logLevel: 'warning',
    absWorkingDir: root,
    plugins: [externalThirdParty],
    define: { __CHECKOUT_BUILD__: JSON.stringify(options.buildInfo ?? currentBuild()) },
    // Bundled ESM has no `require`; give CommonJS code that esbuild inlines one (none today, but cheap insurance).
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return { outdir, externals: externalsOf(result.metafile) };
}

function externalsOf(metafile: Metafile): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!file.endsWith('.mjs')) continue;
    const names = new Set<string>();
    for (const imp of output.imports) {
      if (!imp.external) continue;
      const name = packageOf(imp.path);
      if (name && !isBuiltin(name)) names.add(name);
    }
    out[file.split('/').pop() as string] = [...names].sort();
  }
  return out;
}

const BUILTINS = new Set((await import('node:module')).builtinModules);
function isBuiltin(name: string): boolean {
  return BUILTINS.has(name);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = process.argv.find((a) => a.startsWith('--outdir='));
  const outdir = arg ? resolve(arg.slice('--outdir='.length)) : undefined;
  const { outdir: dir, externals } = await bundle(outdir);
  for (const [file, names] of Object.entries(externals))
    console.log(`${join(dir, file)}  externals: ${names.join(', ')}`);
}
