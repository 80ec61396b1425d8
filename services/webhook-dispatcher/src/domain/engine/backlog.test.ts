import { describe, expect, it } from 'vitest';
import { Backlog } from './backlog';

describe('Backlog', () => {
  it('When the count is below the bound, then below() resolves at once; otherwise once enough work is done', async () => {
    const backlog = new Backlog();
    await backlog.below(1);
    backlog.add(3);
    let passed = false;
    const waiting = backlog.below(2).then(() => (passed = true));
    backlog.add(-1);
    await Promise.resolve();
    expect(passed).toBe(false);
    backlog.add(-1);
    await waiting;
    expect(passed).toBe(true);
    expect(backlog.size).toBe(1);
  });
});
