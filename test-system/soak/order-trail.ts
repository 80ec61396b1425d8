import { randomBytes } from 'node:crypto';
import type { Db } from '@checkout/mongo';
import { drainTopic, type KafkaClient } from '@checkout/kafka';
import { TOPICS, topicName } from '@checkout/contracts';

/** The ids of the orders a ledger example names (ord_test_…, ord_live_…). */
export function orderIdsIn(examples: readonly string[]): string[] {
  return [...new Set(examples.flatMap((e) => e.match(/\bord_(?:test|live)_[A-Za-z0-9]+/g) ?? []))];
}

interface TrailMessage {
  partition: number;
  offset: string;
  type: string;
  detail: string;
}

/**
 * Where an order's events went, for a ledger example that says one was lost or a copy is stale: each of its
 * messages on orders' two topics (partition, offset, type; the internal event's revision, the public event's id
 * and whether the dispatcher recorded it), beside the order's revision and its session's copy. It tells a
 * message never produced from one consumed and dropped, which the ledger's counts alone cannot.
 */
export async function orderTrails(input: {
  kafka: KafkaClient;
  namePrefix: string;
  db: (name: string) => Db;
  orderIds: readonly string[];
}): Promise<string[]> {
  if (input.orderIds.length === 0) return [];
  const wanted = new Set(input.orderIds);
  const read = async (topic: string, describe: (value: Record<string, unknown>) => TrailMessage['detail']) => {
    const found = new Map<string, TrailMessage[]>();
    await drainTopic({
      kafka: input.kafka,
      topic,
      groupId: `${input.namePrefix}.trail-${randomBytes(3).toString('hex')}`,
      commit: false,
      timeoutMs: 30_000,
      handle: async (message) => {
        if (message.key === null || !wanted.has(message.key)) return;
        const value = JSON.parse(message.value) as Record<string, unknown>;
        const list = found.get(message.key) ?? [];
        list.push({
          partition: message.partition,
          offset: message.offset,
          type: String(value.type),
          detail: describe(value),
        });
        found.set(message.key, list);
      },
    });
    return found;
  };
  const internal = await read(topicName(input.namePrefix, TOPICS.orderEvents), (v) => `revision ${String(v.revision)}`);
  const publicEvents = await read(topicName(input.namePrefix, TOPICS.orderPublicEvents), (v) => String(v.eventId));
  const publicIds = [...publicEvents.values()].flat().map((m) => m.detail);
  const recorded = new Set(
    (
      await input
        .db('webhooks')
        .collection<{ _id: string }>('events')
        .find({ _id: { $in: publicIds } }, { projection: { _id: 1 } })
        .toArray()
    ).map((e) => e._id),
  );
  const lines: string[] = [];
  for (const orderId of input.orderIds) {
    const order = await input
      .db('orders')
      .collection<{ _id: string; revision?: number; outbox?: unknown[] }>('orders')
      .findOne({ _id: orderId }, { projection: { revision: 1, outbox: 1 } });
    const session = await input
      .db('sessions')
      .collection<{ _id: string; orderId: string; orderRevision?: number; status: string }>('sessions')
      .findOne({ orderId }, { projection: { orderRevision: 1, status: 1 } });
    const list = (messages: TrailMessage[] | undefined, mark: (m: TrailMessage) => string = () => '') =>
      (messages ?? []).map((m) => `p${m.partition}@${m.offset} ${m.type} ${m.detail}${mark(m)}`).join(', ') || 'none';
    lines.push(
      `trail of ${orderId}: the order at revision ${order?.revision ?? '?'} with ${order?.outbox?.length ?? '?'} ` +
        `unpublished; its session ${session?._id ?? 'none'} ${session?.status ?? ''} with its copy at revision ` +
        `${session?.orderRevision ?? '?'}; on orders.events: ${list(internal.get(orderId))}; on ` +
        `orders.public-events: ${list(publicEvents.get(orderId), (m) => (recorded.has(m.detail) ? ' (recorded)' : ' (NOT recorded)'))}`,
    );
  }
  return lines;
}
