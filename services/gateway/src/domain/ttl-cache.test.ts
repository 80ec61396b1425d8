import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache';

// The gateway's request-path cache (D43): a warm entry costs no load, one load per key at a time, and a key
// this replica changed is read again at once.

function counter() {
  let loads = 0;
  let value = 'v1';
  return { load: async () => { loads += 1; return value; }, set: (v: string) => { value = v; }, loads: () => loads };
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
    const unknown = async () => { loads += 1; return null; };
    await cache.get('k', unknown);
    await cache.get('k', unknown);
    expect(loads).toBe(2);
  });

  it('When a key is forgotten, even while a load is in flight, then the next get reads the new value', async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    let release: (v: string) => void = () => {};
    const slowOld = cache.get('k', () => new Promise<string>((resolve) => { release = resolve; }));
    cache.forget('k');
    release('old');
    expect(await slowOld).toBe('old');
    expect(await cache.get('k', async () => 'new')).toBe('new');
    expect(await cache.get('k', async () => 'newer')).toBe('new');
  });
});
