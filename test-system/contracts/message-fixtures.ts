// Mixed versions: during a rolling deploy old and new code run side by side, so every consumer must
// read every message an older producer still sends. libs/contracts/fixtures/messages/<topic>/<name>.json holds
// one committed example of every message shape produced on every topic; message-fixtures.test.ts runs each
// through the parse function its consumer uses on receipt, and fails when a producer can make a shape that has
// no fixture. This module builds today's messages with the producers' own code (OrderCommands, sessions'
// sessionEventMessage, the dispatcher's WebhookPublisher) and reads and writes the fixture files;
// `npm run fixtures` (scripts/fixtures.ts) adds the fixtures of shapes that have none.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Order, TOPICS, WEBHOOK_RETRY_TIERS, newId, type Mode, type SessionEventStatus } from '@checkout/contracts';
import type { EventProducer, OutboxEntry, OutgoingMessage } from '@checkout/kafka';
import { shapeOf } from '@checkout/testing';
import { nextRevision, type Scope } from '@checkout/mongo';
import {
  OrderCommands,
  OrderEventsProducer,
  ReportEventsProducer,
  newOrder,
  type NewOrderInput,
  type RefundInput,
  presentOrder,
  type OrderDocument,
  type OrdersStore,
  type ReferenceDataStore,
  type ReportDocument,
} from '@checkout/orders/testing';
import { sessionEventMessage, type SessionDocument } from '@checkout/sessions/testing';
import { WebhookPublisher, type DeliveryDocument } from '@checkout/webhook-dispatcher/testing';

export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../libs/contracts/fixtures/messages');

/** One committed message: its key, headers and value (the JSON the producer sent, parsed) and who makes it. */
export interface MessageFixture {
  producedBy: string;
  key: string;
  headers?: Record<string, string>;
  value: unknown;
}

export interface ProducedMessage {
  topic: string;
  /** The fixture file's name without `.json`; a new version of a shape gets a new name (`….v2`). */
  name: string;
  fixture: MessageFixture;
}

/** Every fixture committed under FIXTURES_DIR, by topic (the directory's name). */
export function readFixtures(): Array<{ topic: string; name: string; fixture: MessageFixture }> {
  const found: Array<{ topic: string; name: string; fixture: MessageFixture }> = [];
  for (const topic of readdirSync(FIXTURES_DIR).sort()) {
    for (const file of readdirSync(join(FIXTURES_DIR, topic))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      found.push({
        topic,
        name: file.replace(/\.json$/, ''),
        fixture: JSON.parse(readFileSync(join(FIXTURES_DIR, topic, file), 'utf8')) as MessageFixture,
      });
    }
  }
  return found;
}

/** The shape of a whole fixture: key, header names and value. */
export function fixtureShape(fixture: MessageFixture): string {
  return `${typeof fixture.key}|${Object.keys(fixture.headers ?? {})
    .sort()
    .join(',')}|${shapeOf(fixture.value)}`;
}

const NOW = new Date('2026-01-15T12:00:00.000Z');
const MODE: Mode = 'test';
const SCOPE: Scope = { organizationId: 'org_fixtures', mode: MODE };

function toFixture(message: OutgoingMessage, producedBy: string): MessageFixture {
  return {
    producedBy,
    key: message.key,
    ...(message.headers && { headers: message.headers }),
    value: JSON.parse(message.value) as unknown,
  };
}

// ---- orders.events: OrderCommands with an in-memory store in place of MongoDB ---------------------------

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
async function orderEvents(): Promise<ProducedMessage[]> {
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
    place: (input, extra = {}) => {
      const doc = { ...newOrder(input, { scope: SCOPE, now: NOW }), ...SCOPE, revision: 1, ...extra } as OrderDocument;
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

// ---- checkout.session.events: sessions' sessionEventMessage -------------------------------------------------

function sessionEvents(): ProducedMessage[] {
  const topic = TOPICS.sessionEvents;
  const baseUrl = 'https://checkout.example.com/checkout';
  const orderDoc = (input: NewOrderInput, extra: Partial<OrderDocument>): OrderDocument =>
    ({ ...newOrder(input, { scope: SCOPE, now: NOW }), ...SCOPE, revision: 1, ...extra }) as OrderDocument;
  const session = (
    order: OrderDocument,
    status: SessionDocument['status'],
    extra: Partial<SessionDocument>,
  ): SessionDocument => ({
    _id: newId('cs', MODE),
    ...SCOPE,
    orderId: order._id,
    // The session's copy of its order, as its orders client keeps it.
    orderJson: JSON.stringify(Order.parse(presentOrder(order))),
    orderRevision: order.revision ?? 1,
    status,
    successUrl: null,
    callbackUrl: null,
    expiresAt: new Date(NOW.getTime() + 3_600_000),
    failedAttempts: 0,
    requireFromCustomer: { phone: false, shippingAddress: false, location: false },
    sessionDataJson: '{}',
    organizationName: 'Fixture Coffee',
    enabledPaymentMethods: ['card'],
    collected: {},
    outbox: [],
    outboxPending: false,
    createdAt: NOW,
    updatedAt: NOW,
    ...extra,
  });
  const rich: Partial<SessionDocument> = {
    successUrl: 'https://merchant.example.com/thanks?session={CHECKOUT_SESSION_ID}',
    callbackUrl: 'https://merchant.example.com/webhooks',
    failedAttempts: 1,
    requireFromCustomer: { phone: true, shippingAddress: true, location: true },
    sessionDataJson: JSON.stringify({ cart: { id: 'c-1', lines: [1, 2] }, 'a.b': null, flag: true }),
    enabledPaymentMethods: ['card', 'stablecoin', 'stored_value'],
    locale: 'ar',
  };
  const items = { items: [{ name: 'Coffee', quantity: 2, unitPrice: 450 }] };
  const paid = {
    status: 'completed',
    paymentStatus: 'paid',
    amounts: { subtotal: 900, tax: 0, discount: 0, tip: 0, total: 900, paid: 900 },
    paidAt: NOW,
  } as const;
  const withCustomer = { customer: { id: newId('cust', MODE), email: 'ada@example.com' } };

  const make = (
    name: string,
    producedBy: string,
    doc: SessionDocument,
    order: OrderDocument,
    status: SessionEventStatus,
  ): ProducedMessage => {
    // Sessions keeps the order as orders' answer presents it, parsed against Order (its orders client).
    const envelope = sessionEventMessage(doc, Order.parse(presentOrder(order)), status, NOW, baseUrl);
    return { topic, name, fixture: toFixture({ topic, key: doc._id, value: JSON.stringify(envelope) }, producedBy) };
  };
  const completedOrder = orderDoc(items, paid);
  const completedRich = orderDoc(items, { ...paid, ...withCustomer });
  const openOrder = orderDoc(items, { paymentsClosed: true });
  const openRich = orderDoc(items, { paymentsClosed: true, ...withCustomer });
  return [
    make(
      'checkout.session.completed.minimal.locale',
      'sessions: sessionEventMessage, completed, no callback URL, no customer, empty sessionData',
      session(completedOrder, 'completed', {}),
      completedOrder,
      'completed',
    ),
    make(
      'checkout.session.completed.all-fields.locale',
      'sessions: sessionEventMessage, completed, with callback and success URLs, customer, sessionData',
      session(completedRich, 'completed', rich),
      completedRich,
      'completed',
    ),
    make(
      'checkout.session.expired.minimal.locale',
      'sessions: sessionEventMessage, expired, no callback URL, no customer',
      session(openOrder, 'expired', { expiresAt: NOW }),
      openOrder,
      'expired',
    ),
    make(
      'checkout.session.expired.all-fields.locale',
      'sessions: sessionEventMessage, expired, with callback and success URLs, customer, sessionData',
      session(openRich, 'expired', { ...rich, expiresAt: NOW }),
      openRich,
      'expired',
    ),
  ];
}

// ---- webhooks.retry.N and webhooks.dead-letter: the dispatcher's WebhookPublisher ------------------------

async function webhookMessages(): Promise<ProducedMessage[]> {
  const sent: OutgoingMessage[] = [];
  const producer: EventProducer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    send: (messages) => Promise.resolve(void sent.push(...messages)),
  };
  const publisher = new WebhookPublisher(producer, '');
  const produced: ProducedMessage[] = [];
  const take = (name: string, producedBy: string): void => {
    const message = sent.shift();
    if (!message) throw new Error(`fixtures: ${producedBy} sent nothing`);
    produced.push({ topic: message.topic, name, fixture: toFixture(message, producedBy) });
  };
  for (const tier of WEBHOOK_RETRY_TIERS) {
    await publisher.publishRetry({
      deliveryId: newId('dlv', MODE),
      attempt: tier + 1,
      notBefore: new Date(NOW.getTime() + tier * 60_000).toISOString(),
    });
    take(`retry.attempt-${tier + 1}`, `webhook-dispatcher: WebhookPublisher.publishRetry after failed attempt ${tier}`);
  }
  const delivery = (error: string | null): DeliveryDocument => ({
    _id: newId('dlv', MODE),
    ...SCOPE,
    eventId: newId('evt', MODE),
    eventType: 'checkout.session.completed',
    url: 'https://merchant.example.com/webhooks',
    status: 'failed',
    attempts: [
      { attempt: 5, at: NOW, statusCode: error === null ? 500 : null, durationMs: 120, error, responseSnippet: null },
    ],
    attemptCount: 5,
    nextAttemptAt: null,
    lockedUntil: NOW,
    lockOwner: null,
    deadLetterPending: true,
    createdAt: NOW,
    updatedAt: NOW,
  });
  await publisher.publishDeadLetter(delivery('connect ECONNREFUSED'), NOW);
  take(
    'delivery-failed.with-error',
    'webhook-dispatcher: WebhookPublisher.publishDeadLetter, last attempt had no response',
  );
  await publisher.publishDeadLetter(delivery(null), NOW);
  take(
    'delivery-failed.without-error',
    'webhook-dispatcher: WebhookPublisher.publishDeadLetter, last attempt answered without an error text',
  );
  await publisher.publishDeadLetter({ ...delivery('HTTP 500'), endpointId: newId('we', MODE) }, NOW);
  take(
    'delivery-failed.to-endpoint',
    "webhook-dispatcher: WebhookPublisher.publishDeadLetter, a delivery to a merchant's webhook endpoint (D50)",
  );
  return produced;
}

/**
 * A message a consumer could not parse, parked on the dead-letter topic by libs/kafka (parkOnDeadLetter in
 * consumer.ts, internal to the lib): the original key and value with these two headers. Built here as that
 * function builds it; the value is a session event whose body id differs from its eventId.
 */
function parkedPoison(): ProducedMessage {
  const sessionId = newId('cs', MODE);
  const value = {
    version: 1,
    eventId: newId('evt', MODE),
    type: 'checkout.session.completed',
    sessionId,
    body: { id: newId('evt', MODE) },
  };
  return {
    topic: TOPICS.webhookDeadLetter,
    name: 'parked-poison',
    fixture: toFixture(
      {
        topic: TOPICS.webhookDeadLetter,
        key: sessionId,
        value: JSON.stringify(value),
        headers: { 'x-original-topic': TOPICS.sessionEvents, 'x-failure-reason': 'body.id: must equal eventId' },
      },
      'libs/kafka: parkOnDeadLetter, a message its consumer could not parse',
    ),
  };
}

/** Every message shape the producers of today make, built by their own code. */
export async function produceAll(): Promise<ProducedMessage[]> {
  return [
    ...(await orderEvents()),
    ...reportEvents(),
    ...sessionEvents(),
    ...(await webhookMessages()),
    parkedPoison(),
  ];
}

/** D52's report events on reports.public-events, from orders' ReportEventsProducer: a report succeeded, one failed. */
function reportEvents(): ProducedMessage[] {
  const producer = new ReportEventsProducer({ publishWritten: () => Promise.resolve(0) }, TOPICS.reportEvents);
  const report: ReportDocument = {
    _id: newId('rpt', MODE),
    ...SCOPE,
    type: 'balance_transactions',
    status: 'pending',
    createdAfter: new Date('2026-01-01T00:00:00.000Z'),
    createdBefore: new Date('2026-01-15T00:00:00.000Z'),
    createdAt: NOW,
    expiresAt: new Date(NOW.getTime() + 30 * 24 * 3_600_000),
    attempts: 1,
    outbox: [],
    outboxPending: false,
  };
  const ended: Array<[string, Partial<ReportDocument>]> = [
    ['report.succeeded', { status: 'succeeded', rows: 2, asOf: NOW, fileId: `${report._id}.1` }],
    ['report.failed', { status: 'failed', failureReason: 'internal_error' }],
  ];
  return ended.map(([name, outcome]) => {
    const [entry] = producer.withEvent({ ...report, ...outcome }, NOW).outbox;
    if (!entry) throw new Error(`fixtures: ReportEventsProducer wrote no ${name} event`);
    const message = { topic: entry.topic, key: entry.key, value: entry.value, headers: { 'event-id': entry.eventId } };
    return { topic: TOPICS.reportEvents, name, fixture: toFixture(message, 'orders ReportEventsProducer.withEvent') };
  });
}
