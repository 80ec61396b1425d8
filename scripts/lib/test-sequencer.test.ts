import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { slowestFirst } from './test-sequencer';

const ROOT = '/repo';
/** What the sequencer reads of a test file: its path and its tier's name and group order. */
const spec = (file: string, tier: string, groupOrder: number) =>
  ({
    moduleId: `${ROOT}/${file}`,
    project: { name: tier, config: { sequence: { groupOrder }, isolate: true } },
  }) as unknown as TestSpecification;

/** A run on a clean clone: no durations and no file sizes in vitest's cache. */
const ctx = (sequence: { shuffle: boolean; seed: number }) =>
  ({
    config: { root: ROOT, sequence },
    cache: { getFileTestResults: () => undefined, getFileStats: () => undefined },
  }) as unknown as Vitest;

const files = [
  spec('a.e2e.test.ts', 'e2e', 3),
  spec('slow.component.test.ts', 'integration', 1),
  spec('b.e2e.test.ts', 'e2e', 3),
  spec('slowest.e2e.test.ts', 'e2e', 3),
  spec('c.component.test.ts', 'integration', 1),
  spec('slow.e2e.test.ts', 'e2e', 3),
];
const names = (sorted: TestSpecification[]) => sorted.map((s) => s.moduleId.slice(ROOT.length + 1));

describe('slowestFirst', () => {
  it('When no durations are cached, then each tier starts its named files first, slowest first, the others in their order after them, and the tiers stay in group order', async () => {
    const Sequencer = slowestFirst(['slowest.e2e.test.ts', 'slow.e2e.test.ts', 'slow.component.test.ts']);
    const sorted = await new Sequencer(ctx({ shuffle: false, seed: 1 })).sort(files);
    expect(names(sorted)).toEqual([
      'slow.component.test.ts',
      'c.component.test.ts',
      'slowest.e2e.test.ts',
      'slow.e2e.test.ts',
      'a.e2e.test.ts',
      'b.e2e.test.ts',
    ]);
  });

  it('When --sequence.shuffle is given, then the order is the seed’s: the same for the same seed, another for another', async () => {
    const Sequencer = slowestFirst(['slowest.e2e.test.ts']);
    const order = async (seed: number) => names(await new Sequencer(ctx({ shuffle: true, seed })).sort(files));
    expect(await order(7)).toEqual(await order(7));
    expect(new Set(await order(7))).toEqual(new Set(names(files)));
    const orders = await Promise.all([1, 2, 3, 4, 5].map(order));
    expect(new Set(orders.map((o) => o.join()))).not.toEqual(new Set([orders[0]?.join()]));
  });
});
