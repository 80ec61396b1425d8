import { describe, expect, it } from 'vitest';
import { LRUCache } from 'lru-cache';
import { fetchLatest } from './fetch-latest';

describe('fetchLatest', () => {
  it('When the entry is deleted while it loads, then the waiting caller gets the value read after the change, not an error', async () => {
    let stored = 'before';
    let release: () => void = () => {};
    let loads = 0;
    const cache = new LRUCache<string, string>({
      max: 10,
      ttl: 60_000,
      fetchMethod: async () => {
        loads += 1;
        const value = stored;
        if (loads === 1) await new Promise<void>((resolve) => (release = resolve));
        return value;
      },
    });
    const waiting = fetchLatest(cache, 'k');
    await Promise.resolve();
    stored = 'after';
    cache.delete('k');
    release();
    await expect(waiting).resolves.toBe('after');
    // What the overtaken load read was not kept.
    expect(cache.get('k')).toBe('after');
  });

  it('When the load itself fails, then the error reaches the caller', async () => {
    const cache = new LRUCache<string, string>({
      max: 10,
      fetchMethod: async () => Promise.reject(new Error('database down')),
    });
    await expect(fetchLatest(cache, 'k')).rejects.toThrow('database down');
  });
});
