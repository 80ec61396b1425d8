import { describe, expect, it } from 'vitest';
import { interleavedSlices, sliceOrder, type LiveSlice } from './abuse-live';

describe('slices of the abuse bench', () => {
  it('When K slices a side are asked, then they alternate ABBA, K alone and K beside, each side first as often', () => {
    expect(sliceOrder(3)).toEqual(['alone', 'beside', 'beside', 'alone', 'alone', 'beside']);
    const order = sliceOrder(6);
    expect(order.filter((side) => side === 'alone')).toHaveLength(6);
    expect(order.filter((side) => side === 'beside')).toHaveLength(6);
  });

  it('When run, then the abuser runs beside its slices only, its deliveries drained after each, and each side pooled', async () => {
    const steps: string[] = [];
    let slice = 0;
    const live = async (): Promise<LiveSlice> => {
      slice += 1;
      steps.push(`live ${slice}`);
      return { latencies: [100 - slice, slice], refused: 1, firsts: [] };
    };
    const result = await interleavedSlices({
      pairs: 2,
      live,
      abuse: async () => {
        steps.push('abuse');
        return new Map([['POST 429 RATE_LIMITED', 5]]);
      },
      drain: async () => {
        steps.push('drain');
      },
      loopDelay: async () => ({ p99: slice, max: 10 * slice }),
      cpu: () => new Map([['orders', slice]]),
      probes: async () => new Map([['engine ping', [slice, 10 + slice]]]),
    });
    expect(steps).toEqual(['live 1', 'live 2', 'abuse', 'drain', 'live 3', 'abuse', 'drain', 'live 4']);
    expect(result.alone.latencies).toEqual([1, 4, 96, 99]);
    expect(result.beside.latencies).toEqual([2, 3, 97, 98]);
    expect(result.alone.refused).toBe(2);
    expect(result.tally.get('POST 429 RATE_LIMITED')).toBe(10);
    expect(result.beside.loop).toEqual({ p99: 3, max: 30 });
    // Read before and after each slice: one CPU second a slice, the fake's count of slices so far.
    expect(result.alone.cpu.get('orders')).toBe(2);
    // Probed beside each slice's payments (the fake's number of that slice), pooled by side and sorted.
    expect(result.alone.probes.get('engine ping')).toEqual([1, 4, 11, 14]);
    expect(result.beside.probes.get('engine ping')).toEqual([2, 3, 12, 13]);
  });

  it('When it is the control (no abuser), then nothing is drained and both sides are the merchant alone', async () => {
    const steps: string[] = [];
    const result = await interleavedSlices({
      pairs: 1,
      live: async () => ({ latencies: [5], refused: 0, firsts: [] }),
      abuse: undefined,
      drain: async () => {
        steps.push('drain');
      },
      loopDelay: async () => ({ p99: 0, max: 0 }),
      cpu: () => new Map(),
      probes: async () => new Map(),
    });
    expect(steps).toEqual([]);
    expect(result.beside.latencies).toEqual([5]);
    expect(result.tally.size).toBe(0);
  });
});
