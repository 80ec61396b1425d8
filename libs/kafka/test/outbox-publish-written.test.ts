import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectMongo, type Collection, type MongoConnection } from '@checkout/mongo';
import { CommandCounter, CommandLog } from '@checkout/mongo/testing';
import {
  OutboxRelay,
  SWEPT_HEADER,
  appendToOutbox,
  type EventProducer,
  type OutboxFields,
  type OutgoingMessage,
} from '../src/index';
import { engines, isolatedNames, logger } from './support';

// A writer that holds the document it just wrote publishes its outbox without reading it back
// (publishWritten), one database command fewer per event on the request path; what another writer appended
// meanwhile is not lost: a write this process hands in while the document is being published goes out right
// after, and one another process made is left for the sweep.

interface Aggregate extends OutboxFields {
  _id: string;
  revision?: number;
}

const { database, prefix } = isolatedNames('outbox_written');
const topic = `${prefix}.aggregate-events`;
const commands = new CommandCounter();
let mongo: MongoConnection;
let collection: Collection<Aggregate>;
const sent: OutgoingMessage[] = [];
/** Records what would go to Kafka: this test is about the database side of the relay. */
const recordingProducer: EventProducer = {
  connect: async () => {},
  disconnect: async () => {},
  send: async (messages) => {
    sent.push(...messages);
  },
};
const entry = (eventId: string) => ({
  eventId,
  topic,
  key: 'agg_1',
  value: JSON.stringify({ eventId }),
  createdAt: new Date(),
});

beforeAll(async () => {
  mongo = await commands.watch(() => connectMongo(engines().mongoUrl, database));
  collection = mongo.db.collection<Aggregate>('aggregates');
});

afterAll(async () => {
  await mongo?.close();
});

describe('OutboxRelay.publishWritten', () => {
  it('When the written document is handed in, then its events are sent and marked with one update and no read; an entry appended meanwhile stays pending', async () => {
    const written = appendToOutbox<Aggregate>({ _id: 'agg_1', outbox: [], outboxPending: false }, entry('evt_1'));
    await collection.insertOne(written);
    const relay = new OutboxRelay<Aggregate>({ collection, producer: recordingProducer, logger });

    const { result, commands: used } = await commands.during(() => relay.publishWritten(written));
    expect(result).toBe(1);
    expect(used).toEqual({ update: 1 });
    expect(sent.map((m) => m.headers?.['event-id'])).toEqual(['evt_1']);
    expect(await collection.findOne({ _id: 'agg_1' })).toMatchObject({ outbox: [], outboxPending: false, revision: 1 });

    // Another writer appends evt_3 after evt_2 was written; publishing the copy holding evt_2 leaves evt_3.
    const second = appendToOutbox<Aggregate>({ _id: 'agg_1', outbox: [], outboxPending: false }, entry('evt_2'));
    await collection.updateOne(
      { _id: 'agg_1' },
      { $set: { outbox: [...second.outbox, entry('evt_3')], outboxPending: true } },
    );
    expect(await relay.publishWritten(second)).toBe(1);
    expect(sent.map((m) => m.headers?.['event-id'])).toEqual(['evt_1', 'evt_2']);
    const left = await collection.findOne({ _id: 'agg_1' });
    expect(left?.outbox.map((e) => e.eventId)).toEqual(['evt_3']);
    expect(left?.outboxPending).toBe(true);
  });

  it('When a second write of a document is handed in while its first publish is in flight, then its events go out right after that one, not with the sweep, before the second write returns', async () => {
    const held: (readonly OutgoingMessage[])[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowFirstSend: EventProducer = {
      ...recordingProducer,
      send: async (messages) => {
        held.push(messages);
        if (held.length === 1) await gate;
      },
    };
    const relay = new OutboxRelay<Aggregate>({ collection, producer: slowFirstSend, logger });
    const first = appendToOutbox<Aggregate>({ _id: 'agg_2', outbox: [], outboxPending: false }, entry('evt_a'));
    await collection.insertOne(first);
    const publishingFirst = relay.publishWritten(first);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    // The second write's document still holds evt_a (not yet marked) and adds evt_b.
    const second = appendToOutbox<Aggregate>(first, entry('evt_b'));
    await collection.updateOne({ _id: 'agg_2' }, { $set: { outbox: second.outbox, outboxPending: true } });
    // The second write returns only once its own event is on Kafka, as a write that publishes its own does.
    const eventIds = () => held.map((send) => send.map((m) => m.headers?.['event-id']));
    const publishingSecond = relay.publishWritten(second).then(() => eventIds());
    release();
    expect(await publishingSecond).toEqual([['evt_a'], ['evt_b']]);
    expect(await publishingFirst).toBe(2);
    expect(await collection.findOne({ _id: 'agg_2' })).toMatchObject({ outbox: [], outboxPending: false });
  });

  it('When the sweep publishes what a write left behind, then each message says when its event was written; a write publishing its own events adds nothing', async () => {
    const writtenAt = new Date(Date.now() - 60_000);
    const left = appendToOutbox<Aggregate>(
      { _id: 'agg_4', outbox: [], outboxPending: false },
      { ...entry('evt_left'), createdAt: writtenAt },
    );
    await collection.insertOne(left);
    const relay = new OutboxRelay<Aggregate>({ collection, producer: recordingProducer, logger });
    await relay.sweep();
    const swept = sent.find((m) => m.headers?.['event-id'] === 'evt_left');
    expect(swept?.headers?.[SWEPT_HEADER]).toBe(String(writtenAt.getTime()));
    expect(
      sent.filter((m) => m.headers?.['event-id'] !== 'evt_left' && m.headers?.[SWEPT_HEADER] !== undefined),
    ).toEqual([]);
  });

  it("When the relay knows the collection's shard key fields, then each of its updates names them beside the _id", async () => {
    const log = new CommandLog();
    const routed = await log.watch(() => connectMongo(engines().mongoUrl, database));
    try {
      type Scoped = Aggregate & { organizationId: string; mode: string };
      const scopedCollection = routed.db.collection<Scoped>('aggregates');
      const written = appendToOutbox<Scoped>(
        { _id: 'agg_5', organizationId: 'org_5', mode: 'test', outbox: [], outboxPending: false },
        entry('evt_5'),
      );
      await scopedCollection.insertOne(written);
      // Another write's entry makes the relay take its longest path: the exact mark misses, $pull, then the clear.
      await collection.updateOne({ _id: 'agg_5' }, { $push: { outbox: entry('evt_6') } });
      const relay = new OutboxRelay<Scoped>({
        collection: scopedCollection,
        producer: recordingProducer,
        logger,
        shardKeyFields: ['organizationId', 'mode'],
      });
      const before = log.commands.length;
      await relay.publishWritten(written);
      const filters = log.commands
        .slice(before)
        .filter((c) => c.commandName === 'update')
        .flatMap((c) => (c.command.updates as Array<{ q: Record<string, unknown> }>).map((u) => u.q));
      expect(filters).toHaveLength(3);
      for (const q of filters) expect(q).toMatchObject({ _id: 'agg_5', organizationId: 'org_5', mode: 'test' });
    } finally {
      await routed.close();
    }
  });
});
