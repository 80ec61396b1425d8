// A recorded release (releases.json) as something the local stack can run: its service bundles, built once per
// commit into ~/.cache/checkout-releases/<commit>/ (like the engines: outside the checkout, shared by every
// worktree and clean clone, built in a temporary directory and renamed into place) and run by `npm start -- --from
// <release>` and the mixed-version rollout soak (`npm run soak -- --rollout --from <release>`).
//
// The build: `git archive <commit>` (a fresh clone has the history, maybe not the tags), that release's own
// production dependencies (`npm ci --omit=dev` on its own lockfile, the services' workspaces only, as the image's
// prod-deps stage installs them), then the same esbuild bundling as the image and the benches
// (deploy/scripts/bundle.ts), run by today's code over the release's sources. Cold: ~20 s with a warm npm cache
// (the install is most of it), ~1 s of git and esbuild; cached: nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readReleases, type BuildInfo, type Release } from '@checkout/config';
import { ensureCached } from '@checkout/engines';
import { REPO_ROOT, SERVICES, bundle } from '../../deploy/scripts/bundle';
import { runTool, userCacheDir } from './tool-cache';

function releasesCacheRoot(env: Record<string, string | undefined> = process.env): string {
  return userCacheDir('checkout-releases', env);
}

/** What a stack runs for a service: a release's bundles, or this checkout (its sources, or its own bundles). */
export interface ServiceBuild {
  /** The version it reports (a release's, or this checkout's buildInfo version). */
  version: string;
  commit: string;
  /** Where `<service>.mjs` is; absent: this checkout's sources under tsx. */
  bundleDir?: string;
}

/** A release resolved from what a user typed, and whether it is recorded in releases.json. */
export interface ResolvedRelease extends BuildInfo {
  recorded: boolean;
}

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * `previous`: the latest recorded release that is not the commit checked out (what a deploy of this code rolls
 * from); a recorded version (`1.0.0`); or any commit git knows (a branch, a hash), which runs as `<commit>`.
 */
export function resolveRelease(spec: string, releases: readonly Release[] = readReleases(REPO_ROOT)): ResolvedRelease {
  if (spec === 'previous') {
    const head = git('rev-parse', 'HEAD');
    const previous = [...releases].reverse().find((r) => r.commit !== head);
    if (!previous)
      throw new Error('--from previous: releases.json records no release other than the checked-out commit');
    return { version: previous.version, commit: previous.commit, recorded: true };
  }
  const byVersion = releases.find((r) => r.version === spec);
  if (byVersion) return { version: byVersion.version, commit: byVersion.commit, recorded: true };
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', '--quiet', `${spec}^{commit}`);
  } catch {
    throw new Error(
      `--from ${spec}: not a recorded release (${releases.map((r) => r.version).join(', ')}), "previous", or a commit`,
    );
  }
  const recorded = releases.find((r) => r.commit === commit);
  return recorded
    ? { version: recorded.version, commit, recorded: true }
    : { version: commit.slice(0, 12), commit, recorded: false };
}

interface BuiltMarker {
  version: string;
  commit: string;
  seconds: number;
}

/**
 * The release's service bundles (dist/<service>.mjs beside their node_modules), built on first use. The
 * directory is complete only once renamed into place, so a killed build leaves nothing half-made behind.
 */
export async function ensureReleaseBundles(
  release: BuildInfo,
  log: (line: string) => void,
): Promise<ServiceBuild & { built: boolean; seconds: number }> {
  const dir = join(releasesCacheRoot(), release.commit);
  const marker = (root: string) => join(root, 'build.json');
  const isComplete = async (root: string) =>
    existsSync(marker(root)) && SERVICES.every((s) => existsSync(join(root, 'dist', `${s}.mjs`)));
  const { built } = await ensureCached({
    dir,
    isComplete,
    log,
    build: async (tmp) => {
      const started = Date.now();
      log(`release ${release.version}: building its service bundles into ${dir} (once per commit)`);
      const tar = join(tmp, 'source.tar');
      try {
        git('archive', '--format=tar', `--output=${tar}`, release.commit);
      } catch (err) {
        throw new Error(
          `git archive ${release.commit} failed (a shallow clone lacks old commits: git fetch --unshallow): ${String(err)}`,
          { cause: err },
        );
      }
      const untar = await runTool('tar', ['-xf', tar, '-C', tmp], { log, quiet: true });
      if (untar.code !== 0) throw new Error(`tar -xf of ${release.commit}: ${untar.stderr}`);
      rmSync(tar);
      const install = await runTool(
        'npm',
        [
          'ci',
          '--omit=dev',
          '--ignore-scripts',
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
          ...SERVICES.map((s) => `--workspace=@checkout/${s}`),
        ],
        { log, quiet: true, cwd: tmp, env: { ...process.env, npm_config_update_notifier: 'false' } },
      );
      if (install.code !== 0) throw new Error(`npm ci in ${release.version}'s sources failed:\n${install.stderr}`);
      await bundle(join(tmp, 'dist'), { root: tmp, buildInfo: { version: release.version, commit: release.commit } });
      const seconds = (Date.now() - started) / 1000;
      writeFileSync(
        marker(tmp),
        `${JSON.stringify({ version: release.version, commit: release.commit, seconds } satisfies BuiltMarker)}\n`,
      );
      log(`release ${release.version}: bundles built in ${seconds.toFixed(1)} s`);
    },
  });
  const { seconds } = JSON.parse(readFileSync(marker(dir), 'utf8')) as BuiltMarker;
  return { version: release.version, commit: release.commit, bundleDir: join(dir, 'dist'), built, seconds };
}

/** `--from X` or `--from=X`; undefined when absent. */
export function fromFlag(args: readonly string[]): string | undefined {
  const i = args.findIndex((a) => a === '--from' || a.startsWith('--from='));
  if (i < 0) return undefined;
  const value = args[i]?.includes('=') ? args[i]?.slice('--from='.length) : args[i + 1];
  if (!value || value.startsWith('--')) throw new Error('--from needs a release: a version, "previous" or a commit');
  return value;
}
