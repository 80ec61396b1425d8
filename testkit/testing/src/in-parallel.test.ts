import { describe, expect, it } from 'vitest';
import { inParallel } from './in-parallel';

describe('inParallel', () => {
  it('answers every result at its index, never with more calls in flight than allowed', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await inParallel(10, 3, async (i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // Earlier indexes take longer, so results settle out of order.
      for (let turn = 0; turn < 10 - i; turn++) await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return i * i;
    });
    expect(results).toEqual([0, 1, 4, 9, 16, 25, 36, 49, 64, 81]);
    expect(most).toBe(3);
  });

  it('starts no call for nothing, and no more workers than calls', async () => {
    expect(await inParallel(0, 8, () => Promise.reject(new Error('never called')))).toEqual([]);
    let started = 0;
    await inParallel(2, 8, async () => void started++);
    expect(started).toBe(2);
  });

  it('rejects with the first failure', async () => {
    await expect(
      inParallel(5, 2, async (i) => {
        if (i === 3) throw new Error('call 3 failed');
        return i;
      }),
    ).rejects.toThrow('call 3 failed');
  });
});
