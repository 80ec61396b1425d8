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

    const { result, commands: used } = await commands.during(async () => {
      const published = await relay.publishWritten(written);
      await relay.idle();
      return published;
    });
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
    await relay.idle();
    expect(sent.map((m) => m.headers?.['event-id'])).toEqual(['evt_1', 'evt_2']);
    const left = await collection.findOne({ _id: 'agg_1' });
    expect(left?.outbox.map((e) => e.eventId)).toEqual(['evt_3']);
    expect(left?.outboxPending).toBe(true);
  });

  it('When the broker acknowledges the events, then the writer is answered before their mark lands; stop waits for the mark', async () => {
    let releaseMark: () => void = () => {};
    const markHeld = new Promise<void>((resolve) => (releaseMark = resolve));
    // The relay's collection with its updates held until released: the mark is the only update it makes here.
    const heldUpdates = new Proxy(collection, {
      get(target, property) {
        if (property === 'updateOne')
          return async (...args: Parameters<typeof target.updateOne>) => {
            await markHeld;
            return target.updateOne(...args);
          };
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const relay = new OutboxRelay<Aggregate>({ collection: heldUpdates, producer: recordingProducer, logger });
    const written = appendToOutbox<Aggregate>({ _id: 'agg_3', outbox: [], outboxPending: false }, entry('evt_3a'));
    await collection.insertOne(written);

    expect(await relay.publishWritten(written)).toBe(1);
    expect(sent.map((m) => m.headers?.['event-id'])).toContain('evt_3a');
    expect(await collection.findOne({ _id: 'agg_3' })).toMatchObject({ outboxPending: true });
    const stopping = relay.stop();
    releaseMark();
    await stopping;
    expect(await collection.findOne({ _id: 'agg_3' })).toMatchObject({ outbox: [], outboxPending: false });
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
    // The first write answered at its own acknowledgement; the hand-over went out behind it.
    expect(await publishingFirst).toBe(1);
    await relay.idle();
    expect(await collection.findOne({ _id: 'agg_2' })).toMatchObject({ outbox: [], outboxPending: false });
  });

  it('When the publishes of several documents are acknowledged together, then their marks take two updates between them; one outbox that changed meanwhile keeps only its new entry', async () => {
    let release: () => void = () => {};
    let gate = Promise.resolve();
    let held = 0;
    // As the real producer does under load: one acknowledgement for the sends of many callers.
    const acknowledgedTogether: EventProducer = {
      ...recordingProducer,
      send: async () => {
        held += 1;
        await gate;
      },
    };
    const relay = new OutboxRelay<Aggregate>({ collection, producer: acknowledgedTogether, logger });
    const ids = ['grp_1', 'grp_2', 'grp_3', 'grp_4'];
    const written = ids.map((id) =>
      appendToOutbox<Aggregate>({ _id: id, outbox: [], outboxPending: false }, entry(`evt_${id}`)),
    );
    await collection.insertMany(written);
    const marking = (docs: Aggregate[]) =>
      commands.during(async () => {
        held = 0;
        gate = new Promise<void>((resolve) => (release = resolve));
        const publishing = Promise.all(docs.map((doc) => relay.publishWritten(doc)));
        await vi.waitFor(() => expect(held).toBe(docs.length));
        release();
        const published = await publishing;
        await relay.idle();
        return published;
      });

    const { result, commands: used } = await marking(written);
    expect(result).toEqual([1, 1, 1, 1]);
    // The first mark goes at once, alone; the three that arrive while it is written go together.
    expect(used).toEqual({ update: 2 });
    for (const id of ids)
      expect(await collection.findOne({ _id: id })).toMatchObject({ outbox: [], outboxPending: false });

    // Again, with another writer's entry in the third document: the group's write misses there, and the careful
    // path leaves that entry alone and finds nothing to do in the others.
    const again = ids.map((id) =>
      appendToOutbox<Aggregate>({ _id: id, outbox: [], outboxPending: false }, entry(`evt_${id}_2`)),
    );
    for (const doc of again)
      await collection.updateOne({ _id: doc._id }, { $set: { outbox: doc.outbox, outboxPending: true } });
    await collection.updateOne({ _id: 'grp_3' }, { $push: { outbox: entry('evt_grp_3_other') } });
    const { result: published } = await marking(again);
    expect(published).toEqual([1, 1, 1, 1]);
    for (const id of ids.filter((id) => id !== 'grp_3'))
      expect(await collection.findOne({ _id: id })).toMatchObject({ outbox: [], outboxPending: false });
    const changed = await collection.findOne({ _id: 'grp_3' });
    expect(changed?.outbox.map((e) => e.eventId)).toEqual(['evt_grp_3_other']);
    expect(changed?.outboxPending).toBe(true);
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
      await relay.idle();
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
