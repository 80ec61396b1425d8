// The abuse bench's live merchant (bench/src/abuse.ts): its payments timed from the processor's notification to the
// first delivery at its endpoint, split by their records, in slices interleaved with the abuser's.
import { randomBytes } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import type { Db } from '@checkout/mongo';
import { eventually, type WebhookReceiver } from '@checkout/testing';
import type { Tally } from './abuser';
import { perOperationMs, type CpuSample } from './cpu';
import { clientOf } from './events';
import { paced } from './load';
import type { BenchStack } from './stack';

/** The events a payment causes (D30, D49): the first of them to arrive ends the payment's wait. */
const PAYMENT_EVENTS = new Set(['order.paid', 'checkout.session.completed']);

/**
 * The live merchant for `ms`: at `rate` a second, a session created and paid by the processor's notification; the
 * time from that notification to the first delivery naming the session reaching its endpoint (`/live`).
 */
export async function liveMerchant(
  stack: BenchStack,
  keys: { test: string; live: string },
  receiver: WebhookReceiver,
  rate: number,
  ms: number,
): Promise<LiveSlice> {
  const { call, processor } = clientOf(stack, keys);
  const arrivedBefore = receiver.deliveries('/live').length;
  const paidAt = new Map<string, number>();
  /** The session and its order, either of which the first event delivered names (order.paid, session.completed). */
  const sessionOf = new Map<string, string>();
  let refused = 0;
  await paced(rate, ms, async () => {
    try {
      const { session } = await call('live', 'POST', '/v0/checkout/sessions', {
        items: [{ name: 'Tea', quantity: 2, unitPrice: 600 }],
        successUrl: 'https://merchant.example/thanks',
      });
      sessionOf.set(session.id, session.id);
      sessionOf.set(session.order.id, session.id);
      const sent = Date.now();
      await processor('notifications', {
        paymentId: `pay_live_${randomBytes(8).toString('hex')}`,
        sessionId: session.id,
        amount: session.order.amounts.total,
        method: 'card',
        capturedAt: new Date().toISOString(),
      });
      paidAt.set(session.id, sent);
    } catch {
      // A session or a payment the stack refused (a 503 under load): counted, not timed, as is a payment whose
      // first delivery never arrived.
      refused += 1;
    }
  });
  const firstAt = new Map<string, { receivedAt: number; eventId: string }>();
  // Deliveries that arrived before this slice began name none of its payments: not parsed again each slice.
  let scanned = arrivedBefore;
  await eventually(
    () => {
      const arrived = receiver.deliveries('/live');
      for (const delivery of arrived.slice(scanned)) {
        // The payment's events only: the session's creation delivered order.created naming the order before.
        if (!PAYMENT_EVENTS.has(String((JSON.parse(delivery.body) as { event?: unknown }).event))) continue;
        for (const [, id] of delivery.body.matchAll(/"((?:cs|ord)_live_[0-9A-Za-z]+)"/g)) {
          const session = sessionOf.get(id ?? '');
          if (session && !firstAt.has(session))
            firstAt.set(session, {
              receivedAt: delivery.receivedAt.getTime(),
              eventId: String(delivery.headers['x-service-event-id']),
            });
        }
      }
      scanned = arrived.length;
      return firstAt.size === paidAt.size || undefined;
    },
    { deadlineMs: 300_000, intervalMs: 200, description: "every live payment's first delivery" },
  ).catch(() => undefined); // what never arrived is told apart below, not timed
  const firsts = [...paidAt].flatMap(([id, notifiedAt]) => {
    const first = firstAt.get(id);
    return first === undefined ? [] : [{ ...first, notifiedAt }];
  });
  const latencies = firsts.map((f) => f.receivedAt - f.notifiedAt).sort((a, b) => a - b);
  return { latencies, refused: refused + (paidAt.size - firstAt.size), firsts };
}

/** A live payment's first delivery: when the processor's notification was sent, and when its endpoint got it. */
export interface FirstDelivery {
  eventId: string;
  notifiedAt: number;
  receivedAt: number;
}

/**
 * Each live payment's time from notification to its endpoint, split where the stores' records can: the
 * notification → the event made (the gateway, sessions and orders at work on it), made → the dispatcher's batch
 * handled (Kafka and the consumer's waits), handled → the first attempt started (the inserts, the scheduler's
 * queue), started → received (the POST and the receiver).
 */
export async function liveSegments(
  db: Db,
  firsts: readonly FirstDelivery[],
): Promise<{ made: number[]; consumed: number[]; attempted: number[]; received: number[] }> {
  const segments = {
    made: [] as number[],
    consumed: [] as number[],
    attempted: [] as number[],
    received: [] as number[],
  };
  const deliveries = await db
    .collection<{ eventId: string; eventCreatedAt?: Date; createdAt: Date; attempts: Array<{ at: Date }> }>(
      'deliveries',
    )
    .find({ eventId: { $in: firsts.map((f) => f.eventId) }, mode: 'live' })
    .toArray();
  const byEvent = new Map(deliveries.map((d) => [d.eventId, d]));
  for (const { eventId, notifiedAt, receivedAt } of firsts) {
    const delivery = byEvent.get(eventId);
    const startedAt = delivery?.attempts[0]?.at.getTime();
    if (delivery?.eventCreatedAt === undefined || startedAt === undefined) continue;
    const madeAt = delivery.eventCreatedAt.getTime();
    segments.made.push(madeAt - notifiedAt);
    segments.consumed.push(delivery.createdAt.getTime() - madeAt);
    segments.attempted.push(startedAt - delivery.createdAt.getTime());
    segments.received.push(receivedAt - startedAt);
  }
  for (const values of Object.values(segments)) values.sort((a, b) => a - b);
  return segments;
}

/** A slice of the live merchant's payments: latencies (sorted), those refused or never delivered, their firsts. */
export interface LiveSlice {
  latencies: number[];
  refused: number;
  firsts: FirstDelivery[];
}

/** The dispatcher's event-loop delay over a window, ms. */
export interface LoopDelay {
  p99: number;
  max: number;
}

/**
 * One side's slices pooled: every latency (sorted), the worst slice's event-loop delay, and the CPU seconds each
 * process used over the side's slices (`wallMs` long in all).
 */
export interface Side extends LiveSlice {
  loop: LoopDelay;
  cpu: Map<string, number>;
  wallMs: number;
  /** Each probe's round trips over the side's slices (probeRoundTrips), sorted. */
  probes: Map<string, number[]>;
}

/**
 * One round trip after another, `everyMs` apart, until `ms` have passed, each timed: what any caller of that
 * process waits for at that moment beside the merchant's and the abuser's traffic.
 */
export async function probeRoundTrips(call: () => Promise<unknown>, ms: number, everyMs: number): Promise<number[]> {
  const samples: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const started = performance.now();
    await call();
    const took = performance.now() - started;
    samples.push(took);
    await setTimeout(Math.max(0, everyMs - took));
  }
  return samples;
}

/** Which side each slice of `pairs` pairs is, ABBA: alone, beside, beside, alone, alone, beside… */
export function sliceOrder(pairs: number): Array<'alone' | 'beside'> {
  return Array.from({ length: 2 * pairs }, (_, i) => (i % 4 === 0 || i % 4 === 3 ? 'alone' : 'beside'));
}

/**
 * The live merchant's slices alone and beside the abuser, interleaved (sliceOrder), so that what changes over a run
 * (the stores growing, the processes warming) weighs on both sides alike. `abuse` runs beside each `beside` slice
 * (undefined: an A/A control, the same slices without it); `drain` waits after each until the abuser's deliveries
 * in flight are done, so that the next slice alone is alone.
 */
export async function interleavedSlices(options: {
  pairs: number;
  live: () => Promise<LiveSlice>;
  abuse: (() => Promise<Tally>) | undefined;
  drain: () => Promise<void>;
  loopDelay: () => Promise<LoopDelay>;
  /** CPU seconds used so far by process (bench/src/cpu.ts's sampleCpu). */
  cpu: () => CpuSample;
  /** Round trips timed through each slice, by name (probeRoundTrips). */
  probes: () => Promise<Map<string, number[]>>;
}): Promise<{ alone: Side; beside: Side; tally: Tally }> {
  const empty = (): Side => ({
    latencies: [],
    refused: 0,
    firsts: [],
    loop: { p99: 0, max: 0 },
    cpu: new Map(),
    wallMs: 0,
    probes: new Map(),
  });
  const sides = { alone: empty(), beside: empty() };
  const tally: Tally = new Map();
  for (const side of sliceOrder(options.pairs)) {
    await options.loopDelay(); // each read starts the next window
    const abused = side === 'beside' ? options.abuse : undefined;
    const [cpuBefore, startedAt] = [options.cpu(), performance.now()];
    const [slice, answers, probed] = await Promise.all([options.live(), abused?.(), options.probes()]);
    const loop = await options.loopDelay();
    if (abused) await options.drain();
    const [cpuAfter, wallMs] = [options.cpu(), performance.now() - startedAt];
    for (const [label, count] of answers ?? []) tally.set(label, (tally.get(label) ?? 0) + count);
    const pooled = sides[side];
    pooled.latencies.push(...slice.latencies);
    pooled.refused += slice.refused;
    pooled.firsts.push(...slice.firsts);
    pooled.loop = { p99: Math.max(pooled.loop.p99, loop.p99), max: Math.max(pooled.loop.max, loop.max) };
    pooled.wallMs += wallMs;
    for (const [name, samples] of probed) pooled.probes.set(name, [...(pooled.probes.get(name) ?? []), ...samples]);
    const used = perOperationMs({ label: side, operations: 1, before: cpuBefore, after: cpuAfter });
    for (const [name, ms] of used) pooled.cpu.set(name, (pooled.cpu.get(name) ?? 0) + ms / 1000);
  }
  for (const side of Object.values(sides)) {
    side.latencies.sort((a, b) => a - b);
    for (const samples of side.probes.values()) samples.sort((a, b) => a - b);
  }
  return { ...sides, tally };
}
