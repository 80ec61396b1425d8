import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit';

/** A write whose completion the test controls, recording what each call carried. */
function controlledWrite() {
  const calls: number[][] = [];
  const pending: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  const write = (items: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      calls.push([...items]);
      pending.push({ resolve: () => resolve(items.map((n) => n * 10)), reject });
    });
  return {
    calls,
    write,
    finish: (err?: unknown) => {
      const next = pending.shift();
      if (err === undefined) next?.resolve();
      else next?.reject(err);
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit (the dispatcher records, the producer sends)', () => {
  it('When idle, then a lone write goes at once, alone', async () => {
    const w = controlledWrite();
    const commit = new GroupCommit(w.write);
    const done = commit.add(1);
    expect(w.calls).toEqual([[1]]);
    w.finish();
    await done;
  });

  it('When writes arrive during a write, then they go together in the next one, in order', async () => {
    const w = controlledWrite();
    const commit = new GroupCommit(w.write);
    const all = [commit.add(1), commit.add(2), commit.add(3), commit.add(4)];
    expect(w.calls).toEqual([[1]]);
    w.finish();
    await settle();
    expect(w.calls).toEqual([[1], [2, 3, 4]]);
    w.finish();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40]);
  });

  it('When items arrive together, then they go in one write, and items added meanwhile in the next', async () => {
    const w = controlledWrite();
    const commit = new GroupCommit(w.write);
    const together = commit.addAll([1, 2, 3]);
    const later = commit.add(4);
    expect(w.calls).toEqual([[1, 2, 3]]);
    w.finish();
    expect(await together).toEqual([10, 20, 30]);
    await settle();
    expect(w.calls).toEqual([[1, 2, 3], [4]]);
    w.finish();
    expect(await later).toBe(40);
    expect(await commit.addAll([])).toEqual([]);
  });

  it('When more than the batch limit wait, then they are split into writes of at most the limit', async () => {
    const w = controlledWrite();
    const commit = new GroupCommit(w.write, { maxBatch: 2 });
    const all = [1, 2, 3, 4, 5].map((n) => commit.add(n));
    w.finish();
    await settle();
    w.finish();
    await settle();
    w.finish();
    await Promise.all(all);
    expect(w.calls).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('When a write fails, then only the items it carried are rejected and later ones are still written', async () => {
    const w = controlledWrite();
    const commit = new GroupCommit(w.write);
    const first = commit.add(1);
    const second = commit.add(2);
    w.finish(new Error('engine down'));
    await expect(first).rejects.toThrow('engine down');
    await settle();
    expect(w.calls).toEqual([[1], [2]]);
    w.finish();
    await expect(second).resolves.toBe(20);
  });

  it('When a write of several fails with an error that asks for it, then each item is written alone and only the bad one fails', async () => {
    const calls: number[][] = [];
    const refused = Object.assign(new Error('message too large'), { refused: true });
    const commit = new GroupCommit<number, number>(
      async (items) => {
        calls.push([...items]);
        if (items.includes(13)) throw refused;
        return items.map((n) => n * 10);
      },
      { retryAloneWhen: (err) => err === refused },
    );
    const first = commit.add(1);
    const rest = [commit.add(2), commit.add(13), commit.add(4)];
    expect(await first).toBe(10);
    const [two, thirteen, four] = await Promise.allSettled(rest);
    expect(two).toEqual({ status: 'fulfilled', value: 20 });
    expect(thirteen).toMatchObject({ status: 'rejected', reason: refused });
    expect(four).toEqual({ status: 'fulfilled', value: 40 });
    expect(calls).toEqual([[1], [2, 13, 4], [2], [13], [4]]);
  });

  it('When a write of several fails with any other error, then every item it carried fails at once, without a retry', async () => {
    const calls: number[][] = [];
    const commit = new GroupCommit<number, number>(
      async (items) => {
        calls.push([...items]);
        if (items.length > 1) throw new Error('broker unreachable');
        return items;
      },
      { retryAloneWhen: () => false },
    );
    const first = commit.add(1);
    const rest = [commit.add(2), commit.add(3)];
    await first;
    const settled = await Promise.allSettled(rest);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toEqual([[1], [2, 3]]);
  });
});
