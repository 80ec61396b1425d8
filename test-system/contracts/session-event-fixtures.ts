// checkout.session.events: sessions' sessionEventMessage, on sessions whose order copies orders presented.
import { Order, TOPICS, newId, type SessionEventStatus } from '@checkout/contracts';
import { presentOrder, type OrderDocument } from '@checkout/orders/testing';
import { sessionEventMessage, type SessionDocument } from '@checkout/sessions/testing';
import { MODE, NOW, SCOPE, storedOrder, toFixture, type ProducedMessage } from './produced-message';

const BASE_URL = 'https://checkout.example.com/checkout';

/** Every optional part of a session set: URLs, a customer's details asked for, sessionData, a locale. */
const RICH_SESSION: Partial<SessionDocument> = {
  successUrl: 'https://merchant.example.com/thanks?session={CHECKOUT_SESSION_ID}',
  callbackUrl: 'https://merchant.example.com/webhooks',
  failedAttempts: 1,
  requireFromCustomer: { phone: true, shippingAddress: true, location: true },
  sessionDataJson: JSON.stringify({ cart: { id: 'c-1', lines: [1, 2] }, 'a.b': null, flag: true }),
  enabledPaymentMethods: ['card', 'stablecoin', 'stored_value'],
  locale: 'ar',
};

const ITEMS = { items: [{ name: 'Coffee', quantity: 2, unitPrice: 450 }] };

const PAID = {
  status: 'completed',
  paymentStatus: 'paid',
  amounts: { subtotal: 900, tax: 0, discount: 0, tip: 0, total: 900, paid: 900 },
  paidAt: NOW,
} as const;

/** A completed and an expired session, each with no optional part and with every one. */
export function sessionEvents(): ProducedMessage[] {
  const withCustomer = { customer: { id: newId('cust', MODE), email: 'ada@example.com' } };
  const completedOrder = storedOrder(ITEMS, PAID);
  const completedRich = storedOrder(ITEMS, { ...PAID, ...withCustomer });
  const openOrder = storedOrder(ITEMS, { paymentsClosed: true });
  const openRich = storedOrder(ITEMS, { paymentsClosed: true, ...withCustomer });
  return [
    sessionEventFixture(
      'checkout.session.completed.minimal.locale',
      'sessions: sessionEventMessage, completed, no callback URL, no customer, empty sessionData',
      sessionDocument(completedOrder, 'completed', {}),
      completedOrder,
      'completed',
    ),
    sessionEventFixture(
      'checkout.session.completed.all-fields.locale',
      'sessions: sessionEventMessage, completed, with callback and success URLs, customer, sessionData',
      sessionDocument(completedRich, 'completed', RICH_SESSION),
      completedRich,
      'completed',
    ),
    sessionEventFixture(
      'checkout.session.expired.minimal.locale',
      'sessions: sessionEventMessage, expired, no callback URL, no customer',
      sessionDocument(openOrder, 'expired', { expiresAt: NOW }),
      openOrder,
      'expired',
    ),
    sessionEventFixture(
      'checkout.session.expired.all-fields.locale',
      'sessions: sessionEventMessage, expired, with callback and success URLs, customer, sessionData',
      sessionDocument(openRich, 'expired', { ...RICH_SESSION, expiresAt: NOW }),
      openRich,
      'expired',
    ),
  ];
}

function sessionDocument(
  order: OrderDocument,
  status: SessionDocument['status'],
  extra: Partial<SessionDocument>,
): SessionDocument {
  return {
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
  };
}

function sessionEventFixture(
  name: string,
  producedBy: string,
  doc: SessionDocument,
  order: OrderDocument,
  status: SessionEventStatus,
): ProducedMessage {
  const topic = TOPICS.sessionEvents;
  // Sessions keeps the order as orders' answer presents it, parsed against Order (its orders client).
  const envelope = sessionEventMessage(doc, Order.parse(presentOrder(order)), status, NOW, BASE_URL);
  return { topic, name, fixture: toFixture({ topic, key: doc._id, value: JSON.stringify(envelope) }, producedBy) };
}
