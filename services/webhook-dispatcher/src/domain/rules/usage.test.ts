import { describe, expect, it } from 'vitest';
import { mergeIncrements, nearThresholds, storedBytes, usageIncrements } from './usage';

const a = { organizationId: 'org_a', mode: 'test' as const };
const aLive = { organizationId: 'org_a', mode: 'live' as const };
const b = { organizationId: 'org_b', mode: 'test' as const };

describe("A batch's usage: one increment per organization, mode and UTC day", () => {
  it('When a batch holds several tenants, then each gets one increment with its counts and bytes', () => {
    const at = new Date('2026-11-29T23:59:59.999Z');
    const increments = usageIncrements(
      [
        { doc: a, kind: 'events', bytes: 100 },
        { doc: a, kind: 'deliveries', bytes: 10 },
        { doc: a, kind: 'deliveries', bytes: 10 },
        { doc: aLive, kind: 'events', bytes: 7 },
        { doc: b, kind: 'events', bytes: 1 },
      ],
      at,
    );
    expect(increments).toEqual([
      {
        scope: a,
        day: '2026-11-29',
        dayStart: new Date('2026-11-29T00:00:00.000Z'),
        counts: { events: 1, deliveries: 2, bytes: 120 },
      },
      { scope: aLive, day: '2026-11-29', dayStart: expect.any(Date), counts: { events: 1, deliveries: 0, bytes: 7 } },
      { scope: b, day: '2026-11-29', dayStart: expect.any(Date), counts: { events: 1, deliveries: 0, bytes: 1 } },
    ]);
  });

  it('When increments of one tenant and day wait together, then they are added into one; other days stay apart', () => {
    const today = usageIncrements([{ doc: a, kind: 'events', bytes: 5 }], new Date('2026-11-29T10:00:00Z'));
    const later = usageIncrements([{ doc: a, kind: 'deliveries', bytes: 3 }], new Date('2026-11-29T11:00:00Z'));
    const tomorrow = usageIncrements([{ doc: a, kind: 'events', bytes: 1 }], new Date('2026-11-30T00:00:00Z'));
    const merged = mergeIncrements([...today, ...later, ...tomorrow]);
    expect(merged.map((m) => [m.day, m.counts])).toEqual([
      ['2026-11-29', { events: 1, deliveries: 1, bytes: 8 }],
      ['2026-11-30', { events: 1, deliveries: 0, bytes: 1 }],
    ]);
    // The increments merged from are left as they were.
    expect(today[0]?.counts).toEqual({ events: 1, deliveries: 0, bytes: 5 });
  });
});

describe('The bytes a document is counted for', () => {
  it('When a field grows by N bytes of UTF-8, then the count grows by N; dates and numbers count 8', () => {
    const base = { _id: 'evt_test_1', body: 'x', createdAt: new Date(), attemptCount: 0 };
    const bigger = { ...base, body: `x${'é'.repeat(1_000)}` };
    expect(storedBytes(bigger) - storedBytes(base)).toBe(2_000);
    expect(storedBytes(base)).toBeGreaterThan(Buffer.byteLength(JSON.stringify(base)) - 30);
  });
});

describe('Near a budget: 80 % of each limit, rounded up', () => {
  it('Thresholds', () => {
    expect(nearThresholds({ events: 10_000, deliveries: 3, bytes: 1_000 }, 0.8)).toEqual({
      events: 8_000,
      deliveries: 3,
      bytes: 800,
    });
  });
});
