import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

// What build a process runs: its version and commit, reported on /readyz, in the `checkout_build_info` metric and
// in the x-internal-version header of internal calls, so that a rolling deploy of one service can be told apart
// from the others while old and new run side by side (docs/operations.md, "Shipping one service alone").

/** One release of the platform: the whole repository at one commit (releases.json at its root). */
export const Release = z.strictObject({
  version: z.string().regex(/^\d+\.\d+\.\d+$/, 'a semantic version, e.g. 1.2.0'),
  commit: z.string().regex(/^[0-9a-f]{40}$/, 'the full 40-character commit hash'),
  date: z.iso.date(),
  notes: z.string().min(1),
});
export type Release = z.infer<typeof Release>;

export const ReleasesFile = z.strictObject({
  description: z.string().optional(),
  releases: z.array(Release).min(1),
});

export interface BuildInfo {
  /**
   * The release's version at a release commit; `<latest release>+<12 hex>` between releases; `.dirty` appended
   * when built from a changed tree.
   */
  version: string;
  /** The full commit hash, or `unknown` when the build could not tell (an image built without BUILD_COMMIT). */
  commit: string;
}

export const UNKNOWN_BUILD: BuildInfo = { version: 'unknown', commit: 'unknown' };

/** The releases recorded in `<root>/releases.json`, oldest first, checked against the file's schema. */
export function readReleases(root: string): Release[] {
  const parsed = ReleasesFile.parse(JSON.parse(readFileSync(join(root, 'releases.json'), 'utf8')));
  return parsed.releases;
}

/**
 * The version a build of `commit` reports: the release's own at a recorded release commit, else the latest
 * release of the file (which, at any commit, lists only the releases made before it) with the commit's first 12
 * hex digits as build metadata: `1.0.0+1bfca37a0c2e` reads "after 1.0.0, at 1bfca37a0c2e".
 */
export function versionOf(releases: readonly Release[], commit: string, dirty = false): string {
  const exact = releases.find((r) => r.commit === commit);
  const base = exact && !dirty ? exact.version : `${releases.at(-1)?.version ?? '0.0.0'}+${commit.slice(0, 12)}`;
  return dirty ? `${base}.dirty` : base;
}

/**
 * The build of the checkout at `root`: its releases file and `git` (HEAD, and whether the tree has changes).
 * `commit` is given where git is not (an image build, whose context has no .git: deploy/scripts/build-image.sh
 * passes BUILD_COMMIT). Throws when neither can tell.
 */
export function describeBuild(root: string, commit?: string): BuildInfo {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const head = commit ?? git('rev-parse', 'HEAD');
  if (!/^[0-9a-f]{40}$/.test(head)) throw new Error(`not a commit hash: ${head}`);
  // Only the code counts: an uncommitted change elsewhere (docs) still makes the tree dirty, which errs safe.
  const dirty = commit === undefined && git('status', '--porcelain', '--untracked-files=no') !== '';
  return { version: versionOf(readReleases(root), head, dirty), commit: head };
}

// Replaced by the bundler (deploy/scripts/bundle.ts, esbuild `define`) with the build it made; absent when the
// sources run under tsx, where the checkout itself is asked once.
declare const __CHECKOUT_BUILD__: BuildInfo | undefined;

let cached: BuildInfo | undefined;

/** This process's build: stamped into a bundle at build time, or read from the checkout at first use. */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  if (typeof __CHECKOUT_BUILD__ !== 'undefined') cached = __CHECKOUT_BUILD__;
  else {
    try {
      cached = describeBuild(resolve(fileURLToPath(new URL('../../..', import.meta.url))));
    } catch {
      cached = UNKNOWN_BUILD;
    }
  }
  return cached;
}
