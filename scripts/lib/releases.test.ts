import { describe, expect, it } from 'vitest';
import type { Release } from '@checkout/config';
import { fromFlag, resolveRelease } from './releases';

// `--from <release>`: a recorded version, `previous`, or any commit this clone has (releases.json; no engines).

const FIRST = 'dd3bca07694f5d8697570f220717f06f3a087498';

describe('resolveRelease', () => {
  it('When given a recorded version or its commit (or a prefix), then it is that release', () => {
    expect(resolveRelease('1.0.0')).toEqual({ version: '1.0.0', commit: FIRST, recorded: true });
    expect(resolveRelease('dd3bca0')).toEqual({ version: '1.0.0', commit: FIRST, recorded: true });
  });

  it('When given previous, then it is the latest recorded release that is not the commit checked out', () => {
    expect(resolveRelease('previous').recorded).toBe(true);
    const head = resolveRelease('HEAD').commit;
    const releases: Release[] = [
      { version: '1.0.0', commit: FIRST, date: '2026-11-25', notes: 'n' },
      { version: '1.1.0', commit: head, date: '2026-11-27', notes: 'n' },
    ];
    // Checked out at the latest release, the previous one is the one before it.
    expect(resolveRelease('previous', releases).version).toBe('1.0.0');
  });

  it('When given another commit, then it runs as that commit, not as a release', () => {
    const head = resolveRelease('HEAD', [{ version: '1.0.0', commit: FIRST, date: '2026-11-25', notes: 'n' }]);
    expect(head.recorded).toBe(false);
    expect(head.version).toBe(head.commit.slice(0, 12));
  });

  it('When given what is neither, then it says what it accepts', () => {
    expect(() => resolveRelease('no-such-release-or-branch')).toThrow(
      /not a recorded release \(1\.0\.0.*\), "previous", or a commit/,
    );
  });
});

describe('fromFlag', () => {
  it('reads --from X and --from=X, and refuses a bare --from', () => {
    expect(fromFlag(['--replicas', '2', '--from', 'previous'])).toBe('previous');
    expect(fromFlag(['--from=1.0.0'])).toBe('1.0.0');
    expect(fromFlag(['--replicas', '2'])).toBeUndefined();
    expect(() => fromFlag(['--from', '--replicas', '2'])).toThrow(/needs a release/);
  });
});
