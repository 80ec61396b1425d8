// orders.events and orders.public-events: OrderCommands with an in-memory store in place of MongoDB.
import { TOPICS, newId } from '@checkout/contracts';
import type { OutboxEntry } from '@checkout/kafka';
import { nextRevision, type Scope } from '@checkout/mongo';
import {
  OrderCommands,
  OrderEventsProducer,
  type NewOrderInput,
  type RefundInput,
  type OrderDocument,
  type OrdersStore,
  type ReferenceDataStore,
} from '@checkout/orders/testing';
import { MODE, NOW, SCOPE, storedOrder, toFixture, type ProducedMessage } from './produced-message';

/**
 * The part of OrdersStore that OrderCommands' writes use, kept in memory; a write bumps revision as scoped().mutate
 * does.
 */
class MemoryOrders {
  readonly docs = new Map<string, OrderDocument>();

  getOrder(_scope: Scope, id: string): Promise<OrderDocument | null> {
    return Promise.resolve(this.docs.get(id) ?? null);
  }

  insertOrder(scope: Scope, doc: OrderDocument): Promise<{ order: OrderDocument; created: boolean }> {
    const stored = { ...doc, ...scope };
    this.docs.set(doc._id, stored);
    return Promise.resolve({ order: stored, created: true });
  }

  /** Every externalId is new here: its reservation names the order about to be made. */
  reserveExternalId(_scope: Scope, _externalId: string, orderId: string): Promise<string> {
    return Promise.resolve(orderId);
  }

  findByRefundId(_scope: Scope, refundId: string): Promise<OrderDocument | null> {
    return Promise.resolve([...this.docs.values()].find((d) => d.refunds?.some((r) => r.id === refundId)) ?? null);
  }

  mutateOrder<R>(
    _scope: Scope,
    id: string,
    change: (current: OrderDocument) => { next: OrderDocument | null; result: R },
  ): Promise<{ order: OrderDocument; result: R } | null> {
    const current = this.docs.get(id);
    if (!current) return Promise.resolve(null);
    const { next, result } = change(current);
    if (next === null) return Promise.resolve({ order: current, result });
    const stored = { ...next, revision: nextRevision(current.revision) };
    this.docs.set(id, stored);
    return Promise.resolve({ order: stored, result });
  }
}

/** The fixture names of the events one write appends: `internal` for orders.events, `public` in written order. */
interface OutboxEventNames {
  internal?: string;
  public?: readonly string[];
}

/** OrderCommands on an in-memory store, and what records the events its writes append to the outbox. */
interface OrderFixtureWriter {
  commands: OrderCommands;
  /** Stores an order made from `input` as if created earlier; returns its id. */
  place: (input: NewOrderInput, extra?: Partial<OrderDocument>) => string;
  /** Outbox entries as the relay sends them, each named. */
  record: (entries: readonly OutboxEntry[], names: OutboxEventNames, producedBy: string) => void;
  /** The events a write of order `id` appended to its outbox. */
  written: (id: string, write: () => Promise<unknown>, names: OutboxEventNames, producedBy: string) => Promise<void>;
}

/**
 * Both topics orders writes, from OrderCommands on an in-memory store: the internal events of orders.events
 * (sessions' order copies) and the public events of orders.public-events (D49, the dispatcher's events API).
 */
export async function orderEvents(): Promise<ProducedMessage[]> {
  const produced: ProducedMessage[] = [];
  const writer = orderFixtureWriter(produced);
  const inputs = orderInputs();
  await createUpdateAndCancelEvents(writer, inputs);
  const paidId = await paymentEvents(writer, inputs);
  await refundEvents(writer, paidId);
  const id = writer.place(inputs.minimal);
  await writer.written(
    id,
    () => writer.commands.closePayments(SCOPE, id),
    { internal: 'order.payments_closed.amounts-refunded' },
    'orders: OrderCommands.closePayments (its session expired)',
  );
  return produced;
}

function orderFixtureWriter(produced: ProducedMessage[]): OrderFixtureWriter {
  const store = new MemoryOrders();
  const commands = new OrderCommands({
    // Only insertOrder, reserveExternalId, getOrder, findByRefundId and mutateOrder are reached by the commands used
    // here.
    orders: store as unknown as OrdersStore,
    // A create checks its location and payment destination: every one named here exists and is active.
    referenceData: {
      getLocation: () => Promise.resolve({}),
      findDestination: (_scope: Scope, id: string) => Promise.resolve({ _id: id, status: 'active', verified: true }),
    } as unknown as ReferenceDataStore,
    events: new OrderEventsProducer(
      { publishWritten: () => Promise.resolve(0) },
      { orderEvents: TOPICS.orderEvents, publicEvents: TOPICS.orderPublicEvents },
    ),
    clock: () => NOW,
  });
  const record = (entries: readonly OutboxEntry[], names: OutboxEventNames, producedBy: string): void => {
    const internal = entries.filter((e) => e.topic === TOPICS.orderEvents);
    const published = entries.filter((e) => e.topic === TOPICS.orderPublicEvents);
    if (internal.length !== (names.internal ? 1 : 0) || published.length !== (names.public?.length ?? 0))
      throw new Error(
        `fixtures: ${producedBy} wrote ${internal.length} internal and ${published.length} public events`,
      );
    const push = (name: string, entry: OutboxEntry) =>
      produced.push({
        topic: entry.topic,
        name,
        fixture: toFixture(
          { topic: entry.topic, key: entry.key, value: entry.value, headers: { 'event-id': entry.eventId } },
          producedBy,
        ),
      });
    if (names.internal && internal[0]) push(names.internal, internal[0]);
    published.forEach((entry, i) => push(names.public?.[i] ?? '', entry));
  };
  return {
    commands,
    place: (input, extra) => {
      const doc = storedOrder(input, extra);
      store.docs.set(doc._id, doc);
      return doc._id;
    },
    record,
    written: async (id, write, names, producedBy) => {
      const before = store.docs.get(id)?.outbox.length ?? 0;
      await write();
      record(store.docs.get(id)?.outbox.slice(before) ?? [], names, producedBy);
    },
  };
}

interface OrderInputs {
  minimal: NewOrderInput;
  everything: NewOrderInput;
  customer: Partial<OrderDocument>;
}

function orderInputs(): OrderInputs {
  const minimal: NewOrderInput = { items: [{ name: 'Coffee', quantity: 2, unitPrice: 450 }] };
  const everything: NewOrderInput = {
    items: [
      { name: 'Coffee', quantity: 2, unitPrice: 450 },
      { name: 'Cake', quantity: 1, unitPrice: 600 },
    ],
    taxes: [{ name: 'VAT', type: 'additive', amount: 150 }],
    discounts: [{ name: 'Regulars', type: 'fixed', amount: 100 }],
    externalId: 'pos-1234',
    shippingAddress: {
      name: 'Ada Lovelace',
      line1: '1 Main St',
      line2: 'Flat 2',
      city: 'London',
      state: 'LDN',
      postalCode: 'N1 9GU',
      country: 'GB',
    },
    locationId: newId('loc', MODE),
    paymentDestination: newId('pd', MODE),
    metadata: { till: '3', 'odd.key$': 'kept' },
  };
  const customer = {
    customer: { id: newId('cust', MODE), email: 'ada@example.com', name: 'Ada Lovelace', phone: '+442079460000' },
  };
  return { minimal, everything, customer };
}

async function createUpdateAndCancelEvents(writer: OrderFixtureWriter, inputs: OrderInputs): Promise<void> {
  const { commands, place, record, written } = writer;
  const { minimal, everything, customer } = inputs;
  // Created: its public event only (no session waits for a creation).
  const { order: created } = await commands.create(SCOPE, minimal);
  record(created.outbox, { public: ['order.created.minimal'] }, 'orders: OrderCommands.create, no optional field');
  const { order: createdRich } = await commands.create(SCOPE, everything);
  record(
    createdRich.outbox,
    { public: ['order.created.all-fields'] },
    'orders: OrderCommands.create, every optional field but a customer (found or created in a store not run here)',
  );

  let id = created._id;
  await written(
    id,
    () => commands.update(SCOPE, id, { metadata: { note: 'gift' } }),
    { internal: 'order.updated.minimal.amounts-refunded', public: ['order.updated.minimal'] },
    'orders: OrderCommands.update, an order with no optional field',
  );

  id = place(everything, customer);
  await written(
    id,
    () => commands.update(SCOPE, id, { items: [{ name: 'Coffee', quantity: 3, unitPrice: 450 }] }),
    { internal: 'order.updated.all-fields.amounts-refunded', public: ['order.updated.all-fields'] },
    'orders: OrderCommands.update, an order with every optional field',
  );

  id = place(minimal);
  await written(
    id,
    () => commands.cancel(SCOPE, id),
    { internal: 'order.cancelled.amounts-refunded', public: ['order.cancelled'] },
    'orders: OrderCommands.cancel',
  );
}

/** Pays an order in two parts; returns its id, the paid order refundEvents refunds. */
async function paymentEvents(writer: OrderFixtureWriter, inputs: OrderInputs): Promise<string> {
  const { commands, written } = writer;
  const id = writer.place(inputs.everything, inputs.customer);
  await written(
    id,
    () => commands.applyPayment(SCOPE, id, { paymentId: newId('pay', MODE), amount: 500, method: 'card' }),
    { internal: 'order.payment_applied.partial.amounts-refunded', public: ['order.updated.partly-paid'] },
    'orders: OrderCommands.applyPayment, part of the total (order stays open)',
  );
  await written(
    id,
    () => commands.applyPayment(SCOPE, id, { paymentId: newId('pay', MODE), method: 'stablecoin' }),
    { internal: 'order.payment_applied.completed.amounts-refunded', public: ['order.paid'] },
    'orders: OrderCommands.applyPayment, the rest (order completed, paidAt set)',
  );
  return id;
}

/** D48: refunds of the paid order `id`, each state its producer can write. */
async function refundEvents(writer: OrderFixtureWriter, id: string): Promise<void> {
  const { commands, written } = writer;
  const refund =
    (outcome: 'succeeded' | 'pending' | 'failed', extra: Partial<RefundInput> = {}) =>
    () =>
      commands.createRefund(SCOPE, id, { refundId: newId('re', MODE), amount: 100, outcome, ...extra });
  await written(
    id,
    refund('succeeded', { reason: 'requested_by_customer', metadata: { rma: 'R-1' } }),
    {
      internal: 'order.refund_created.succeeded',
      public: ['refund.created.with-reason', 'refund.succeeded.with-reason'],
    },
    'orders: OrderCommands.createRefund, test mode (succeeded at once), with a reason and metadata',
  );
  await written(
    id,
    refund('failed'),
    { internal: 'order.refund_created.failed', public: ['refund.created.failed', 'refund.failed.at-once'] },
    'orders: OrderCommands.createRefund, the test helper with outcome failed (no reason)',
  );
  const pendingId = newId('re', MODE);
  await written(
    id,
    refund('pending', { refundId: pendingId }),
    { internal: 'order.refund_created.pending', public: ['refund.created.pending'] },
    'orders: OrderCommands.createRefund, live mode (pending until the processor settles it)',
  );
  await written(
    id,
    () => commands.settleRefund(SCOPE, pendingId, 'succeeded'),
    { internal: 'order.refund_settled.succeeded', public: ['refund.succeeded'] },
    "orders: OrderCommands.settleRefund, the processor's notification or the test helper: succeeded",
  );
  const failingId = newId('re', MODE);
  await refund('pending', { refundId: failingId })();
  await written(
    id,
    () => commands.settleRefund(SCOPE, failingId, 'failed', 'insufficient_funds'),
    { internal: 'order.refund_settled.failed', public: ['refund.failed'] },
    "orders: OrderCommands.settleRefund, the processor's notification: failed, with its failure reason",
  );
}
