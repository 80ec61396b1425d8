import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildInfo, describeBuild, readReleases, versionOf, type Release } from './build-info';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const release = (version: string, commit: string): Release => ({
  version,
  commit,
  date: '2026-11-25',
  notes: 'n',
});
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = '0123456789abcdef0123456789abcdef01234567';

describe('versionOf', () => {
  it('When the commit is a recorded release, then the version is that release', () => {
    expect(versionOf([release('1.0.0', A), release('1.1.0', B)], A)).toBe('1.0.0');
  });

  it('When the commit is between releases, then the version is the latest release with the commit as build metadata', () => {
    expect(versionOf([release('1.0.0', A), release('1.1.0', B)], C)).toBe('1.1.0+0123456789ab');
  });

  it('When the tree has changes, then even a release commit says so', () => {
    expect(versionOf([release('1.0.0', A)], A, true)).toBe('1.0.0+aaaaaaaaaaaa.dirty');
  });
});

describe('releases.json', () => {
  const releases = readReleases(ROOT);

  it('parses, oldest first, with versions rising and unique commits', () => {
    const dates = releases.map((r) => r.date);
    expect([...dates].sort()).toEqual(dates);
    const numbers = releases.map((r) => r.version.split('.').map(Number));
    for (let i = 1; i < numbers.length; i++) {
      const [a, b] = [numbers[i - 1] as number[], numbers[i] as number[]];
      const rising = a.findIndex((v, j) => v !== b[j]);
      expect(rising >= 0 && (a[rising] as number) < (b[rising] as number), releases[i]?.version).toBe(true);
    }
    expect(new Set(releases.map((r) => r.commit)).size).toBe(releases.length);
  });

  it('names commits this repository has, each an ancestor of HEAD', () => {
    for (const r of releases)
      execFileSync('git', ['merge-base', '--is-ancestor', r.commit, 'HEAD'], { cwd: ROOT, stdio: 'ignore' });
  });
});

describe('buildInfo under tsx', () => {
  it('is the checkout: its HEAD and a version after the latest release', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(buildInfo().commit).toBe(head);
    expect(buildInfo()).toEqual(describeBuild(ROOT));
    expect(buildInfo().version).toMatch(/^\d+\.\d+\.\d+(\+[0-9a-f]{12})?(\.dirty)?$/);
  });
});
