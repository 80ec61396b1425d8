import { usageDay, type Scope } from '@checkout/contracts';
import type { UsageCounts, UsageIncrement } from '../engine/records';

/**
 * About the bytes a document takes stored: each top-level field's name and value, strings by their UTF-8 length,
 * numbers and dates 8 bytes, nested values by their JSON. Close to BSON's size (within its few bytes of framing per
 * field), and cheap: no document is serialised for it but its nested parts (a delivery's trace carrier).
 */
export function storedBytes(doc: Readonly<Record<string, unknown>>): number {
  let bytes = 5;
  for (const [name, value] of Object.entries(doc)) {
    bytes += Buffer.byteLength(name) + 2;
    if (typeof value === 'string') bytes += Buffer.byteLength(value) + 5;
    else if (typeof value === 'number' || value instanceof Date) bytes += 8;
    else if (typeof value === 'boolean') bytes += 1;
    else if (value !== null && value !== undefined) bytes += Buffer.byteLength(JSON.stringify(value));
  }
  return bytes;
}

/** A document counted against its tenant's budgets: an event or a delivery. */
export interface CountedDocument {
  organizationId: string;
  mode: Scope['mode'];
}

/**
 * The increments of one batch: one per organization, mode and UTC day, whatever the number of documents, so a
 * batch costs one update per tenant (and all of them one command).
 */
export function usageIncrements(
  counted: ReadonlyArray<{ doc: CountedDocument; kind: 'events' | 'deliveries'; bytes: number }>,
  at: Date,
): UsageIncrement[] {
  const day = usageDay(at);
  const dayStart = new Date(`${day}T00:00:00.000Z`);
  const byTenant = new Map<string, UsageIncrement>();
  for (const { doc, kind, bytes } of counted) {
    const key = `${doc.organizationId}|${doc.mode}`;
    let increment = byTenant.get(key);
    if (!increment) {
      increment = {
        scope: { organizationId: doc.organizationId, mode: doc.mode },
        day,
        dayStart,
        counts: { events: 0, deliveries: 0, bytes: 0 },
      };
      byTenant.set(key, increment);
    }
    increment.counts[kind] += 1;
    increment.counts.bytes += bytes;
  }
  return [...byTenant.values()];
}

/** Increments of one tenant and day added together (what waited for one command). */
export function mergeIncrements(increments: readonly UsageIncrement[]): UsageIncrement[] {
  const merged = new Map<string, UsageIncrement>();
  for (const increment of increments) {
    const key = `${increment.scope.organizationId}|${increment.scope.mode}|${increment.day}`;
    const into = merged.get(key);
    if (!into) {
      merged.set(key, { ...increment, counts: { ...increment.counts } });
      continue;
    }
    for (const name of ['events', 'deliveries', 'bytes'] as const) into.counts[name] += increment.counts[name];
  }
  return [...merged.values()];
}

/** The counts at which a tenant is near its budgets: `share` of each limit, rounded up. */
export function nearThresholds(limits: UsageCounts, share: number): UsageCounts {
  return {
    events: Math.ceil(limits.events * share),
    deliveries: Math.ceil(limits.deliveries * share),
    bytes: Math.ceil(limits.bytes * share),
  };
}
