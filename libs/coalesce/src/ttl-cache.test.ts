import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache';

// The dispatcher's cache of signing secrets (D35), on lru-cache: a warm entry costs no load, one load per key at a
// time, at most maxEntries kept, and, where asked for, the last value read (or the failure) outlives a failing
// owner for a pause.

function counter() {
  let loads = 0;
  let value = 'v1';
  return {
    load: async () => {
      loads += 1;
      return value;
    },
    set: (v: string) => {
      value = v;
    },
    loads: () => loads,
  };
}

describe('TtlCache', () => {
  it('When an entry is fresh, then it is served without a load; once it lapses, it is loaded again', async () => {
    let now = 0;
    const cache = new TtlCache<string>({ ttlMs: 1_000, maxEntries: 10, now: () => now });
    const source = counter();
    expect(await cache.get('k', source.load)).toBe('v1');
    now = 1_000;
    expect(await cache.get('k', source.load)).toBe('v1');
    expect(source.loads()).toBe(1);
    source.set('v2');
    now = 1_001;
    expect(await cache.get('k', source.load)).toBe('v2');
    expect(source.loads()).toBe(2);
  });

  it('When many requests miss at once, then one load serves them all', async () => {
    const cache = new TtlCache<string>({ ttlMs: 1_000, maxEntries: 10 });
    const source = counter();
    const values = await Promise.all(Array.from({ length: 20 }, () => cache.get('k', source.load)));
    expect(values).toEqual(Array(20).fill('v1'));
    expect(source.loads()).toBe(1);
  });

  it('When a value is not to be remembered, then every get loads it', async () => {
    const cache = new TtlCache<string | null>({ ttlMs: 1_000, maxEntries: 10, remember: (v) => v !== null });
    let loads = 0;
    const unknown = async () => {
      loads += 1;
      return null;
    };
    await cache.get('k', unknown);
    await cache.get('k', unknown);
    expect(loads).toBe(2);
  });

  it('When a load fails and stale-if-error is off, then the error reaches the caller', async () => {
    let now = 0;
    const cache = new TtlCache<string>({ ttlMs: 1_000, maxEntries: 10, now: () => now });
    await cache.get('k', async () => 'v1');
    now = 2_000;
    await expect(cache.get('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  });

  it('When a load fails and a value was read before, then that value is served and the owner is asked again only after the pause (stale if error)', async () => {
    let now = 0;
    const cache = new TtlCache<string>({ ttlMs: 30_000, maxEntries: 10, staleRetryMs: 5_000, now: () => now });
    await cache.get('k', async () => 'v1');
    now = 31_000;
    let failedLoads = 0;
    const failing = async () => {
      failedLoads += 1;
      throw new Error('down');
    };
    expect(await cache.get('k', failing)).toBe('v1');
    now = 36_000;
    expect(await cache.get('k', failing)).toBe('v1');
    expect(failedLoads).toBe(1);
    now = 36_001;
    expect(await cache.get('k', async () => 'v2')).toBe('v2');
  });

  it('When a load fails and nothing was read before, then callers get the error at once until the pause is over, and the owner is asked again then', async () => {
    let now = 0;
    const cache = new TtlCache<string>({ ttlMs: 30_000, maxEntries: 10, staleRetryMs: 5_000, now: () => now });
    let loads = 0;
    const failing = async () => {
      loads += 1;
      throw new Error('down');
    };
    await expect(cache.get('never', failing)).rejects.toThrow('down');
    now = 5_000;
    await expect(cache.get('never', failing)).rejects.toThrow('down');
    expect(loads).toBe(1);
    now = 5_001;
    expect(await cache.get('never', async () => 'v1')).toBe('v1');
  });

  it('When stale-if-error is off, then every caller after a failure tries the load again', async () => {
    const cache = new TtlCache<string>({ ttlMs: 30_000, maxEntries: 10 });
    let loads = 0;
    const failing = async () => {
      loads += 1;
      throw new Error('down');
    };
    await expect(cache.get('k', failing)).rejects.toThrow('down');
    await expect(cache.get('k', failing)).rejects.toThrow('down');
    expect(loads).toBe(2);
  });

  it('When more keys are read than maxEntries, then the least recently used is loaded again and the others are not', async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    const loads: string[] = [];
    const load = (key: string) => async () => {
      loads.push(key);
      return key;
    };
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    await cache.get('a', load('a'));
    await cache.get('c', load('c'));
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
  });

  it('When a key is pushed out while its load is in flight, then its callers still get the value', async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 1 });
    let release: (v: string) => void = () => {};
    const slow = cache.get(
      'a',
      () =>
        new Promise<string>((resolve) => {
          release = resolve;
        }),
    );
    expect(await cache.get('b', async () => 'b')).toBe('b');
    release('a');
    expect(await slow).toBe('a');
  });

  it('When ttlMs is 0, then nothing is remembered, yet concurrent callers share one load', async () => {
    const cache = new TtlCache<string>({ ttlMs: 0, maxEntries: 10 });
    const source = counter();
    expect(await Promise.all([cache.get('k', source.load), cache.get('k', source.load)])).toEqual(['v1', 'v1']);
    expect(source.loads()).toBe(1);
    await cache.get('k', source.load);
    expect(source.loads()).toBe(2);
  });
});
