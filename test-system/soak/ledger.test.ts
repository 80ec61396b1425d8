import { describe, expect, it } from 'vitest';
import type { CheckoutSession, WebhookEvent } from '@checkout/contracts';
import type { ReceivedRequest } from '@checkout/testing';
import { SERVICES } from '../../scripts/lib/process-stack';
import { insideOutage, planChaos, shuffled, type OutageWindow } from './chaos';
import { reconcile } from './ledger';
import { ORPHANED_CREATES } from './ledger-answers';
import {
  BOOKS_BALANCE,
  BOOKS_ORDER_SUM,
  BOOKS_ORPHAN_LINES,
  BOOKS_PAYMENT_LINES,
  BOOKS_REFUND_LINES,
  BOOKS_REPORTS,
} from './ledger-books';
import { SESSIONS_PATH_APPLIED_AGAIN, SESSIONS_PATH_PAID_BUT_REFUSED } from './ledger-payments';
import {
  ORDER_EVENTS_LOST,
  REFUNDS_APPLIED_TWICE,
  REFUNDS_DISAGREE,
  REFUNDS_EXCEED_PAID,
  REFUND_EVENTS_LOST,
  REFUND_EVENTS_TWICE,
} from './ledger-refunds';
import type { LedgerInput, SessionWebhookEvent, StoredBalanceLine, StoredOrder } from './ledger-types';
import type { Journey } from './journey-types';

const session = (
  id: string,
  status: CheckoutSession['status'],
  orderId: string,
  paid: number,
  refunded = 0,
  paymentStatus = 'paid',
) => ({ id, status, order: { id: orderId, paymentStatus, amounts: { paid, refunded } } }) as unknown as CheckoutSession;
const event = (id: string, type: string, sessionId: string) =>
  ({
    id,
    event: type,
    createdAt: '2026-11-23T00:00:00.000Z',
    session: { id: sessionId },
  }) as unknown as SessionWebhookEvent;
const received = (
  eventId: string,
  deliveryId: string,
  sessionId: string,
  type = 'checkout.session.completed',
): ReceivedRequest => ({
  method: 'POST',
  path: '/hooks/healthy',
  headers: { 'x-service-event-id': eventId, 'x-service-delivery-id': deliveryId },
  body: JSON.stringify({ id: eventId, event: type, session: { id: sessionId } }),
  receivedAt: new Date(0),
});
const orderEvent = (id: string, type: string, orderId: string, refund?: { id: string }) =>
  ({
    id,
    event: type,
    createdAt: '2026-11-23T00:00:00.000Z',
    ...(refund && { refund }),
    order: { id: orderId },
  }) as unknown as WebhookEvent;
const journey = (overrides: Partial<Journey>): Journey => ({
  n: 0,
  kind: 'pay-full',
  merchant: 0,
  mode: 'test',
  externalId: 'x',
  receiver: 'healthy',
  created: 'created',
  paymentIntents: 1,
  processorPaymentIds: [],
  refunds: [],
  steps: [],
  ...overrides,
});

/** One completed session paid once, its event delivered once: a ledger that balances. */
function balanced(): LedgerInput {
  return {
    records: [{ route: 'POST /v0/checkout/sessions', outcome: 201, sentAt: 1_000, doneAt: 1_010 }],
    windows: [],
    journeys: [journey({ sessionId: 'cs_1', orderId: 'ord_1' })],
    sessions: new Map([['cs_1', session('cs_1', 'completed', 'ord_1', 500)]]),
    events: [
      {
        event: event('evt_1', 'checkout.session.completed', 'cs_1'),
        deliveries: [{ id: 'dlv_1', url: 'http://x', status: 'succeeded', attempts: [] }],
      },
    ],
    publicEvents: [orderEvent('evt_o1', 'order.created', 'ord_1'), orderEvent('evt_o2', 'order.paid', 'ord_1')],
    orders: [
      {
        id: 'ord_1',
        paid: 500,
        total: 500,
        status: 'completed',
        paymentStatus: 'paid',
        payments: [{ paymentId: 'pay_1', amount: 500 }],
      },
    ],
    sessionOrderIds: new Set(['ord_1']),
    received: { healthy: [received('evt_1', 'dlv_1', 'cs_1')], slow: [], flapping: [], failing: [] },
    skippedJourneys: 0,
    generatorErrors: [],
  };
}
const row = (input: LedgerInput, label: string) => reconcile(input).rows.find((r) => r.label === label)?.value;

describe('the soak ledger', () => {
  it('When everything balances, then no check is violated', () => {
    expect(reconcile(balanced()).violations).toBe(0);
  });

  it('When a 503 falls outside every outage window, then it is a violation; inside one, it is only counted', () => {
    const input = balanced();
    input.records = [...input.records, { route: 'GET /v0/orders/:id', outcome: 503, sentAt: 5_000, doneAt: 5_100 }];
    expect(row(input, '5xx or no answer outside outage windows')).toBe(1);
    input.windows = [{ what: 'SIGKILL orders', start: 4_000, readyAt: 4_500, end: 5_050, recovered: true }];
    expect(row(input, '5xx or no answer outside outage windows')).toBe(0);
  });

  it('When the stack did not recover from an outage, then that is a violation of its own', () => {
    const input = balanced();
    input.windows = [{ what: 'database restart', start: 1_000, readyAt: 121_000, end: 126_000, recovered: false }];
    expect(row(input, 'outages not recovered within 60 s')).toBe(1);
    expect(reconcile(input).violations).toBe(1);
  });

  it('When an order carries one payment twice or more payments than the merchant asked for, then payments applied twice counts them', () => {
    const input = balanced();
    input.orders = [
      {
        id: 'ord_1',
        paid: 1_500,
        payments: [
          { paymentId: 'pay_1', amount: 500 },
          { paymentId: 'pay_1', amount: 500 },
          { paymentId: 'pay_2', amount: 500 },
        ],
      },
    ];
    expect(row(input, 'payments applied twice')).toBe(2);
  });

  it('When amounts.paid differs from the applied payments, then it is a violation', () => {
    const input = balanced();
    input.orders = [{ id: 'ord_1', paid: 400, payments: [{ paymentId: 'pay_1', amount: 500 }] }];
    expect(row(input, 'orders whose amounts.paid ≠ sum of applied payments')).toBe(1);
  });

  /** D48: the balanced ledger with two refunds of its order (one succeeded, one pending), each from its own key. */
  function refunded(): LedgerInput {
    const input = balanced();
    const intent = (key: string, id: string) => ({ key, answers: ['201'], unknownFirst: false, refundIds: [id] });
    input.journeys = [
      journey({
        kind: 'refund',
        sessionId: 'cs_1',
        orderId: 'ord_1',
        refunds: [
          intent('k1', 're_1'),
          intent('k2', 're_2'),
          { key: 'k3', answers: ['400 REFUND_FAILED'], unknownFirst: false, refundIds: [] },
        ],
      }),
    ];
    input.orders = [
      {
        ...(input.orders[0] as StoredOrder),
        paymentStatus: 'partially_refunded',
        refunded: 200,
        refunds: [
          { id: 're_1', amount: 200, status: 'succeeded' },
          { id: 're_2', amount: 300, status: 'pending' },
        ],
      },
    ];
    input.sessions = new Map([['cs_1', session('cs_1', 'completed', 'ord_1', 500, 200, 'partially_refunded')]]);
    input.publicEvents = [
      ...input.publicEvents,
      orderEvent('evt_r1', 'refund.created', 'ord_1', { id: 're_1' }),
      orderEvent('evt_r2', 'refund.succeeded', 'ord_1', { id: 're_1' }),
      orderEvent('evt_r3', 'refund.created', 'ord_1', { id: 're_2' }),
    ];
    return input;
  }

  it('When refunds balance (a succeeded and a pending one, a refused key, their events), then no check is violated (D48)', () => {
    const report = reconcile(refunded());
    expect(report.violations, report.examples.join('\n')).toBe(0);
    expect(row(refunded(), REFUNDS_EXCEED_PAID)).toBe(0);
  });

  it('When the succeeded and pending refunds of an order add up to more than it was paid, then it is a violation', () => {
    const input = refunded();
    const order = input.orders[0] as StoredOrder;
    order.refunds = [...(order.refunds ?? []), { id: 're_3', amount: 1, status: 'pending' }];
    expect(row(input, REFUNDS_EXCEED_PAID)).toBe(1);
  });

  it('When an order holds more refunds than the keys could make, one refund twice, or one key answered two refunds, then refunds applied twice counts each', () => {
    const more = refunded();
    const order = more.orders[0] as StoredOrder;
    order.refunds = [...(order.refunds ?? []), { id: 're_9', amount: 0, status: 'failed' }];
    expect(row(more, REFUNDS_APPLIED_TWICE)).toBe(1);
    const same = refunded();
    (same.orders[0] as StoredOrder).refunds?.push({ id: 're_1', amount: 0, status: 'failed' });
    expect(row(same, REFUNDS_APPLIED_TWICE)).toBe(2);
    const keyTwice = refunded();
    keyTwice.journeys[0]?.refunds[0]?.refundIds.push('re_2');
    expect(row(keyTwice, REFUNDS_APPLIED_TWICE)).toBe(1);
  });

  it("When amounts.refunded, paymentStatus or the session's copy disagrees with the refunds, then it is a violation", () => {
    const stored = refunded();
    (stored.orders[0] as StoredOrder).refunded = 500;
    expect(row(stored, REFUNDS_DISAGREE)).toBe(1);
    const status = refunded();
    (status.orders[0] as StoredOrder).paymentStatus = 'paid';
    expect(row(status, REFUNDS_DISAGREE)).toBe(1);
    const copy = refunded();
    copy.sessions = new Map([['cs_1', session('cs_1', 'completed', 'ord_1', 500, 0, 'paid')]]);
    expect(row(copy, REFUNDS_DISAGREE)).toBe(1);
  });

  it('When a refund or order event is missing from the events API, or recorded under two ids, then it is counted (D49)', () => {
    const lost = refunded();
    lost.publicEvents = lost.publicEvents.filter((e) => e.id !== 'evt_r2' && e.id !== 'evt_o2');
    expect(row(lost, REFUND_EVENTS_LOST)).toBe(1);
    expect(row(lost, ORDER_EVENTS_LOST)).toBe(1);
    const twice = refunded();
    twice.publicEvents = [...twice.publicEvents, orderEvent('evt_r9', 'refund.created', 'ord_1', { id: 're_1' })];
    expect(row(twice, REFUND_EVENTS_TWICE)).toBe(1);
  });

  it('When a refund answered 201 is not on its order, then the answer is contradicted', () => {
    const input = refunded();
    input.journeys[0]?.refunds.push({ key: 'k4', answers: ['201'], unknownFirst: false, refundIds: ['re_gone'] });
    expect(row(input, 'definite answers the final state contradicts')).toBe(1);
  });

  it('When a retry after an unknown outcome applied a payment again, then the ledger names that path, not a plain double payment', () => {
    const input = balanced();
    input.journeys = [
      journey({
        sessionId: 'cs_1',
        orderId: 'ord_1',
        paymentIntents: 1,
        steps: ['create-session 201', 'pay 200 after 503'],
      }),
    ];
    input.orders = [
      {
        id: 'ord_1',
        paid: 1_000,
        payments: [
          { paymentId: 'pay_1', amount: 500 },
          { paymentId: 'pay_2', amount: 500 },
        ],
      },
    ];
    expect(row(input, SESSIONS_PATH_APPLIED_AGAIN)).toBe(1);
    expect(row(input, 'payments applied twice')).toBe(0);
    input.journeys = [
      journey({ sessionId: 'cs_1', orderId: 'ord_1', paymentIntents: 1, steps: ['create-session 201', 'pay 200'] }),
    ];
    expect(row(input, SESSIONS_PATH_APPLIED_AGAIN)).toBe(0);
    expect(row(input, 'payments applied twice')).toBe(1);
  });

  it('When a pay was answered only on its retry after a connection error, then an extra payment is put on that path too', () => {
    const input = balanced();
    input.journeys = [
      journey({
        sessionId: 'cs_1',
        orderId: 'ord_1',
        paymentIntents: 1,
        steps: ['create-session 201', 'pay 200 after connection-error'],
      }),
    ];
    input.orders = [
      {
        id: 'ord_1',
        paid: 1_000,
        payments: [
          { paymentId: 'pay_1', amount: 500 },
          { paymentId: 'pay_2', amount: 500 },
        ],
      },
    ];
    expect(row(input, SESSIONS_PATH_APPLIED_AGAIN)).toBe(1);
    expect(row(input, 'payments applied twice')).toBe(0);
  });

  it('When a pay retried after a 503 is refused because the first try completed the session, then it is no double payment, only counted', () => {
    const input = balanced();
    input.journeys = [
      journey({
        sessionId: 'cs_1',
        orderId: 'ord_1',
        paymentIntents: 1,
        steps: ['create-session 201', 'pay 400 SESSION_NOT_PAYABLE after 503'],
      }),
    ];
    expect(row(input, 'payments applied twice')).toBe(0);
    expect(row(input, SESSIONS_PATH_PAID_BUT_REFUSED)).toBe(1);
    input.journeys = [
      journey({
        sessionId: 'cs_1',
        orderId: 'ord_1',
        paymentIntents: 1,
        steps: ['create-session 201', 'pay 400 SESSION_NOT_PAYABLE'],
      }),
    ];
    expect(row(input, 'payments applied twice')).toBe(1);
  });

  it('When a 500 answers a request, inside an outage window or not, then it is a violation (an outage answers 503)', () => {
    const input = balanced();
    input.records = [
      ...input.records,
      { route: 'POST /v0/checkout/sessions', outcome: 500, sentAt: 5_000, doneAt: 5_100 },
    ];
    input.windows = [{ what: 'database restart', start: 4_000, readyAt: 4_500, end: 9_500, recovered: true }];
    expect(row(input, '5xx or no answer outside outage windows')).toBe(0);
    expect(row(input, '500 responses (an outage must answer 503)')).toBe(1);
  });

  it('When a definite answer is contradicted (paid 200 but not completed; a retried create 409 with no session behind it), then both count', () => {
    const input = balanced();
    input.journeys = [
      journey({ sessionId: 'cs_1', orderId: 'ord_1', steps: ['create-session 201', 'pay 200', 'get-session 200'] }),
      journey({
        n: 1,
        externalId: 'ext-orphan',
        created: 'duplicate-on-retry',
        steps: ['create-session 409 DUPLICATE_EXTERNAL_ID'],
      }),
      journey({
        n: 2,
        externalId: 'ext-fine',
        created: 'duplicate-on-retry',
        steps: ['create-session 409 DUPLICATE_EXTERNAL_ID'],
      }),
    ];
    input.orders = [
      ...input.orders,
      { id: 'ord_orphan', paid: 0, payments: [], externalId: 'ext-orphan' },
      { id: 'ord_fine', paid: 0, payments: [], externalId: 'ext-fine' },
    ];
    input.sessionOrderIds = new Set(['ord_1', 'ord_fine']);
    expect(row(input, ORPHANED_CREATES)).toBe(1);
    expect(row(input, 'definite answers the final state contradicts')).toBe(0);
    input.sessions = new Map([['cs_1', session('cs_1', 'pending', 'ord_1', 500)]]);
    expect(row(input, 'definite answers the final state contradicts')).toBe(1);
  });

  it('When a cancel answered 200 leaves its session pending, then the example names what the stores hold behind it', () => {
    const input = balanced();
    input.journeys = [
      journey({
        kind: 'cancel',
        sessionId: 'cs_1',
        orderId: 'ord_1',
        steps: ['create-session 201', 'patch-order 200', 'cancel-order 200', 'get-session 200'],
      }),
    ];
    input.sessions = new Map([['cs_1', session('cs_1', 'pending', 'ord_1', 0)]]);
    input.storedStateOf = (id) =>
      id === 'cs_1' ? 'its order copy open at revision 2; the order is cancelled at revision 5' : undefined;
    const report = reconcile(input);
    expect(report.rows.find((r) => r.label === 'definite answers the final state contradicts')?.value).toBe(1);
    expect(
      report.examples.some((e) =>
        e.includes('session is pending (its order copy open at revision 2; the order is cancelled at revision 5)'),
      ),
    ).toBe(true);
  });

  it('When a consumer group has messages left after the drain, then that is a violation naming the group', () => {
    const input = balanced();
    input.consumerLag = new Map([
      ['soak.sessions.order-events', 0],
      ['soak.webhook-dispatcher.session-events', 0],
    ]);
    expect(row(input, 'messages consumer groups had not consumed after the drain')).toBe(0);
    input.consumerLag = new Map([
      ['soak.sessions.order-events', 12],
      ['soak.webhook-dispatcher.session-events', 0],
    ]);
    const report = reconcile(input);
    expect(
      report.rows.find((r) => r.label === 'messages consumer groups had not consumed after the drain')?.value,
    ).toBe(12);
    expect(report.examples.some((e) => e.includes('soak.sessions.order-events: 12 messages not committed'))).toBe(true);
  });

  it('When a completed session has two event ids, or none at all, then it is counted, and a missing event is lost', () => {
    const twice = balanced();
    twice.received = {
      ...twice.received,
      healthy: [received('evt_1', 'dlv_1', 'cs_1'), received('evt_2', 'dlv_2', 'cs_1')],
    };
    expect(row(twice, 'completed sessions without exactly one checkout.session.completed id')).toBe(1);
    const none = balanced();
    none.events = [];
    none.received = { healthy: [], slow: [], flapping: [], failing: [] };
    expect(row(none, 'completed sessions without exactly one checkout.session.completed id')).toBe(1);
    expect(row(none, 'events lost')).toBe(1);
  });

  it('When attempts of one event carry two delivery ids, or a delivery stays pending, then both are violations', () => {
    const input = balanced();
    input.received = {
      ...input.received,
      healthy: [received('evt_1', 'dlv_1', 'cs_1'), received('evt_1', 'dlv_9', 'cs_1')],
    };
    input.events = [
      {
        event: event('evt_1', 'checkout.session.completed', 'cs_1'),
        deliveries: [{ id: 'dlv_1', url: 'http://x', status: 'pending', attempts: [] }],
      },
    ];
    expect(row(input, 'events whose deliveries used more than one delivery id')).toBe(1);
    expect(row(input, 'webhook deliveries still pending after the drain')).toBe(1);
  });
});

const line = (id: string, type: string, orderId: string, sourceId: string, amount: number): StoredBalanceLine => ({
  id,
  organizationId: 'org_1',
  mode: 'test',
  type,
  orderId,
  sourceId,
  amount,
  currency: 'USD',
});
const balance = (payments: number, refunds: number, count: number) => ({
  organizationId: 'org_1',
  mode: 'test',
  currency: 'USD',
  payments,
  refunds,
  count,
});

/** The balanced ledger with its books (D52): ord_1's one payment is one line, and the balance holds it. */
function withBooks(): LedgerInput {
  return {
    ...balanced(),
    books: { lines: [line('txn_1', 'payment', 'ord_1', 'pay_1', 500)], balances: [balance(500, 0, 1)] },
  };
}

/** ord_1 paid 500, a succeeded refund of 100, a pending one of 50, a failed one of 20, and their lines. */
function refundedBooks(): LedgerInput {
  const input = withBooks();
  input.orders = [
    {
      ...(input.orders[0] as StoredOrder),
      refunded: 100,
      refunds: [
        { id: 're_ok', amount: 100, status: 'succeeded' },
        { id: 're_wait', amount: 50, status: 'pending' },
        { id: 're_no', amount: 20, status: 'failed' },
      ],
    },
  ];
  input.books = {
    lines: [line('txn_1', 'payment', 'ord_1', 'pay_1', 500), line('txn_2', 'refund', 'ord_1', 're_ok', -100)],
    balances: [balance(500, 100, 2)],
  };
  return input;
}

const BOOK_CHECKS = [BOOKS_ORDER_SUM, BOOKS_PAYMENT_LINES, BOOKS_REFUND_LINES, BOOKS_ORPHAN_LINES, BOOKS_BALANCE];
const bookRows = (input: LedgerInput) => Object.fromEntries(BOOK_CHECKS.map((label) => [label, row(input, label)]));
const only = (violated: Record<string, number>) => ({
  ...Object.fromEntries(BOOK_CHECKS.map((label) => [label, 0])),
  ...violated,
});

describe('the books rows (D52)', () => {
  it('When every movement has its one line and the balance holds them, then every books row is 0', () => {
    expect(reconcile(withBooks()).violations).toBe(0);
    expect(bookRows(withBooks())).toEqual(only({}));
    expect(row(withBooks(), 'balance transactions stored')).toBe(1);
    expect(bookRows(refundedBooks())).toEqual(only({}));
  });

  it('When the orders that ran last has no ledger (no books read), then no books row is printed', () => {
    const rows = reconcile(balanced()).rows.map((r) => r.label);
    expect(rows.filter((label) => BOOK_CHECKS.includes(label))).toEqual([]);
  });

  it('When a payment has no line, then its order does not sum and the balance holds a line that is not there', () => {
    const input = withBooks();
    input.books = { lines: [], balances: [balance(500, 0, 1)] };
    expect(bookRows(input)).toEqual(only({ [BOOKS_ORDER_SUM]: 1, [BOOKS_PAYMENT_LINES]: 1, [BOOKS_BALANCE]: 1 }));
    expect(reconcile(input).examples).toContain(`${BOOKS_PAYMENT_LINES}: payment pay_1 of order ord_1 (500): 0 lines`);
  });

  it('When one payment has two lines (two ids for one movement), then it is not exactly one, and the sums are off', () => {
    const input = withBooks();
    input.books = {
      lines: [line('txn_1', 'payment', 'ord_1', 'pay_1', 500), line('txn_dup', 'payment', 'ord_1', 'pay_1', 500)],
      balances: [balance(1_000, 0, 2)],
    };
    expect(bookRows(input)).toEqual(only({ [BOOKS_ORDER_SUM]: 1, [BOOKS_PAYMENT_LINES]: 1 }));
  });

  it('When a succeeded refund has no line and a pending one has a line, then both are counted', () => {
    const input = refundedBooks();
    input.books = {
      lines: [line('txn_1', 'payment', 'ord_1', 'pay_1', 500), line('txn_3', 'refund', 'ord_1', 're_wait', -100)],
      balances: [balance(500, 100, 2)],
    };
    expect(bookRows(input)).toEqual(only({ [BOOKS_REFUND_LINES]: 1, [BOOKS_ORPHAN_LINES]: 1 }));
  });

  it('When a line names no movement of its order (another amount, an unknown order), then it is an orphan', () => {
    const input = withBooks();
    input.books = {
      lines: [line('txn_1', 'payment', 'ord_1', 'pay_1', 400), line('txn_9', 'payment', 'ord_gone', 'pay_9', 7)],
      balances: [balance(407, 0, 2)],
    };
    expect(bookRows(input)).toEqual(only({ [BOOKS_ORDER_SUM]: 1, [BOOKS_PAYMENT_LINES]: 1, [BOOKS_ORPHAN_LINES]: 2 }));
  });

  it('When a balance counted a line twice, or a merchant with lines has no balance, then the balance row counts each', () => {
    const twice = withBooks();
    twice.books = { ...(twice.books as NonNullable<LedgerInput['books']>), balances: [balance(1_000, 0, 2)] };
    expect(bookRows(twice)).toEqual(only({ [BOOKS_BALANCE]: 1 }));
    const none = withBooks();
    none.books = { ...(none.books as NonNullable<LedgerInput['books']>), balances: [] };
    expect(bookRows(none)).toEqual(only({ [BOOKS_BALANCE]: 1 }));
  });

  it('When a report over the window sums otherwise than the API, then the reports row counts it; without reports it is absent', () => {
    const input = withBooks();
    expect(row(input, BOOKS_REPORTS)).toBeUndefined();
    const totals = { payments: 500, refunds: 0, count: 1 };
    input.books = {
      ...(input.books as NonNullable<LedgerInput['books']>),
      reports: [
        { merchant: 'org_1/test', report: totals, api: totals },
        { merchant: 'org_2/test', report: { ...totals, count: 0 }, api: totals },
      ],
    };
    expect(row(input, BOOKS_REPORTS)).toBe(1);
  });
});

describe('the chaos plan', () => {
  it('When planned for one minute, then it kills a service every 20 s and restarts the broker and the database once each, all before the last 5 s', () => {
    const plan = planChaos(60_000);
    expect(plan.map((p) => p.action.kind)).toEqual([
      'kill-service',
      'restart-broker',
      'kill-service',
      'restart-database',
      'kill-service',
    ]);
    expect(plan.every((p) => p.atMs <= 55_000)).toBe(true);
    expect(planChaos(600_000).filter((p) => p.action.kind === 'kill-service')).toHaveLength(30);
  });

  it('When a request overlaps a window at either end, then it is inside', () => {
    const windows: OutageWindow[] = [{ what: 'x', start: 100, readyAt: 150, end: 200, recovered: true }];
    expect(insideOutage(windows, 50, 100)).toBe(true);
    expect(insideOutage(windows, 200, 300)).toBe(true);
    expect(insideOutage(windows, 201, 300)).toBe(false);
    expect(insideOutage(windows, 0, 99)).toBe(false);
  });
});

describe('the chaos victims', () => {
  it('When four services are killed in a row, then each is killed once, in an order the seed decides', () => {
    const order = (seed: number) => {
      let a = seed;
      return shuffled(SERVICES, () => (a = (a * 16807) % 2_147_483_647) / 2_147_483_647);
    };
    expect([...order(7)].sort()).toEqual([...SERVICES].sort());
    expect(order(7)).toEqual(order(7));
  });
});
