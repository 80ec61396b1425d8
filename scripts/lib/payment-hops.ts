// What `npm run hops` walks: one test-mode card payment on the hosted page, from the gateway to the Kafka send
// of checkout.session.completed, and on from the dispatcher's consumer to the webhook POST. The table names
// functions and routes that exist on main and on this branch alike, so the same walk measures both.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CallGraph, type Bridge, type FunctionRef, type Hop, type Walk, type WalkResult } from './call-hops';

const SESSIONS_ORDERS_CLIENT = 'services/sessions/src/clients/orders.client.ts';
const ORDERS_ROUTES = 'services/orders/src/http/orders.routes.ts';
const REFERENCE_ROUTES = 'services/orders/src/http/reference-data.routes.ts';
const PAYMENT_METHODS_FILE = 'services/sessions/src/domain/payment-methods.ts';

const HOSTED_PAGE_PAY = { file: 'services/sessions/src/http/hosted-page.routes.ts', route: 'POST /:sessionId/pay' };
const KAFKA_SEND: FunctionRef = { file: 'libs/kafka/src/producer.ts', name: 'EventProducer.send' };
const WEBHOOK_POST: FunctionRef = {
  file: 'services/webhook-dispatcher/src/clients/webhook-endpoints.client.ts',
  name: 'WebhookSender.send',
};

/** Calls the compiler sees only as far as an interface, and the implementation a card payment takes. */
const IN_PROCESS_BRIDGES: readonly Bridge[] = (['available', 'simulate'] as const).map((member) => ({
  from: { file: PAYMENT_METHODS_FILE, name: `PaymentMethodEntry.${member}` },
  to: [{ file: PAYMENT_METHODS_FILE, name: `PAYMENT_METHOD_TABLE.card.${member}` }],
}));

/** Internal HTTP: each client method that sessions (or the gateway) calls, and the route handler it lands in. */
const HTTP_BRIDGES: readonly Bridge[] = [
  // The gateway's pass-through: its port (domain/owners.ts) is implemented by the InternalApi the clients share,
  // whose method crosses to sessions (in versions before the port, the call landed on the client's method).
  {
    from: { file: 'services/gateway/src/domain/owners.ts', name: 'PassThrough.passThrough' },
    to: [{ file: 'services/gateway/src/clients/internal-api.ts', name: 'InternalApi.passThrough' }],
  },
  {
    from: { file: 'services/gateway/src/clients/internal-api.ts', name: 'InternalApi.passThrough' },
    to: [HOSTED_PAGE_PAY],
  },
  {
    from: { file: 'services/gateway/src/clients/sessions.client.ts', name: 'SessionsClient.passThrough' },
    to: [HOSTED_PAGE_PAY],
  },
  ...IN_PROCESS_BRIDGES,
  ...(
    [
      ['applyPayment', ORDERS_ROUTES, 'POST /:orderId/payments'],
      ['closePayments', ORDERS_ROUTES, 'POST /:orderId/close-payments'],
      ['get', ORDERS_ROUTES, 'GET /:orderId'],
      ['update', ORDERS_ROUTES, 'PATCH /:orderId'],
      ['cancel', ORDERS_ROUTES, 'POST /:orderId/cancel'],
      ['listLocations', REFERENCE_ROUTES, 'GET /locations'],
      ['findPaymentDestination', REFERENCE_ROUTES, 'GET /payment-destinations'],
    ] as const
  ).map(([method, file, route]) => ({
    from: { file: SESSIONS_ORDERS_CLIENT, name: `OrdersClient.${method}` },
    to: [{ file, route }],
  })),
];

const DISPATCHER = 'services/webhook-dispatcher/src';
/** Each method of the dispatcher engine's store ports (domain/engine/records.ts), and the store implementing it. */
const DISPATCHER_STORE_PORTS = {
  EventRecords: ['events.store', 'EventsStore', ['recordEvents', 'getEvent', 'getEvents', 'listCreatedSince']],
  DeliveryRecords: [
    'deliveries.store',
    'DeliveriesStore',
    [
      'insertDelivery',
      'insertDeliveries',
      'releaseHolds',
      'getForDispatch',
      'claim',
      'recordAttempt',
      'recordAttempts',
      'deferAttempt',
      'markDeadLettered',
      'markRecovered',
      'succeededToEndpointSince',
      'listUnrecoveredFailedSince',
      'findRecoverable',
      'findRecoverableOf',
      'findDeadLetterPending',
    ],
  ],
  EndpointRecords: [
    'webhook-endpoints.store',
    'WebhookEndpointsStore',
    ['get', 'ofScopes', 'moveFailingRun', 'disableFailing'],
  ],
} as const;

/**
 * The dispatcher's engine calls the sender and the stores through its ports (domain/engine/ports.ts and records.ts;
 * the sender's port was in domain/ports.ts or domain/dispatcher.ts in earlier versions): each port method reaches its
 * one implementation. The signing secrets (an HTTP call to the gateway) and the Kafka publisher stay ports, as ever.
 */
const DISPATCHER_PORT_BRIDGES: readonly Bridge[] = [
  ...['domain/ports', 'domain/dispatcher', 'domain/engine/ports'].map((file) => ({
    from: { file: `${DISPATCHER}/${file}.ts`, name: 'WebhookSenderPort.send' },
    to: [WEBHOOK_POST],
  })),
  ...Object.entries(DISPATCHER_STORE_PORTS).flatMap(([port, [file, store, methods]]) =>
    methods.map((method) => ({
      from: { file: `${DISPATCHER}/domain/engine/records.ts`, name: `${port}.${method}` },
      to: [{ file: `${DISPATCHER}/store/${file}.ts`, name: `${store}.${method}` }],
    })),
  ),
];

const PAYMENT_WALKS = {
  /** The browser's POST through the gateway's pass-through, sessions and orders, to the Kafka send. */
  toKafka: {
    entries: [{ file: 'services/gateway/src/http/checkout-page.routes.ts', route: 'POST /checkout/*path' }],
    targets: [KAFKA_SEND],
    bridges: HTTP_BRIDGES,
  },
  /** The same request inside the sessions process only: its hosted-page handler to the Kafka send, no HTTP hop. */
  sessions: { entries: [HOSTED_PAGE_PAY], targets: [KAFKA_SEND], bridges: IN_PROCESS_BRIDGES },
  /** The dispatcher: the consumer's parse and its batch handler, to the POST to the merchant's endpoint. */
  dispatcher: {
    entries: [
      { file: `${DISPATCHER}/messaging/session-events.consumer.ts`, name: 'parseSessionEvent' },
      { file: `${DISPATCHER}/domain/engine/record.ts`, name: 'Recorder.recordEventsAndQueueFirstAttempts' },
      // The same handler where versions before the engine's folder had it (`--at` an older revision).
      { file: `${DISPATCHER}/domain/record.ts`, name: 'Recorder.recordEventsAndQueueFirstAttempts' },
    ],
    targets: [WEBHOOK_POST],
    bridges: DISPATCHER_PORT_BRIDGES,
  },
} satisfies Record<string, Walk>;

export interface PaymentHops {
  toKafka: WalkResult;
  sessions: WalkResult;
  dispatcher: WalkResult;
  /** Gateway to the webhook POST: the two walks either side of Kafka together (a function counted once). */
  toWebhook: { hops: Hop[]; files: string[] };
}

export function paymentHops(root: string): PaymentHops {
  const graph = new CallGraph(root);
  const toKafka = graph.walk(PAYMENT_WALKS.toKafka);
  const sessions = graph.walk(PAYMENT_WALKS.sessions);
  // Each version has the recorder in one of the places the table names.
  const dispatcherWalk = {
    ...PAYMENT_WALKS.dispatcher,
    entries: PAYMENT_WALKS.dispatcher.entries.filter((entry) => existsSync(join(root, entry.file))),
  };
  const dispatcher = graph.walk(dispatcherWalk);
  for (const [name, result, walk] of [
    ['toKafka', toKafka, PAYMENT_WALKS.toKafka],
    ['sessions', sessions, PAYMENT_WALKS.sessions],
    ['dispatcher', dispatcher, dispatcherWalk],
  ] as const) {
    if (result.reached.length !== walk.targets.length)
      throw new Error(
        `the ${name} walk never reaches ${walk.targets.map((t) => t.name).join(', ')}: the table is out of date`,
      );
  }
  const byKey = new Map([...toKafka.hops, ...dispatcher.hops].map((hop) => [`${hop.file}:${hop.line}`, hop]));
  const hops = [...byKey.values()];
  return { toKafka, sessions, dispatcher, toWebhook: { hops, files: [...new Set(hops.map((h) => h.file))].sort() } };
}

/** Hops per top-level package (`services/sessions`, `libs/kafka`): where a walk spends its functions. */
export function byPackage(hops: readonly Hop[]): Map<string, { hops: number; files: number }> {
  const out = new Map<string, { hops: number; files: Set<string> }>();
  for (const hop of hops) {
    const pkg = hop.file.split('/').slice(0, 2).join('/');
    const entry = out.get(pkg) ?? { hops: 0, files: new Set<string>() };
    entry.hops += 1;
    entry.files.add(hop.file);
    out.set(pkg, entry);
  }
  return new Map(
    [...out].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, { hops: v.hops, files: v.files.size }]),
  );
}
