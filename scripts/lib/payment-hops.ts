// What `npm run hops` walks: one test-mode card payment on the hosted page, from the gateway to the Kafka send
// of checkout.session.completed, and on from the dispatcher's consumer to the webhook POST. The table names
// functions and routes that exist on main and on this branch alike, so the same walk measures both.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTERNAL_ROUTES } from '@checkout/contracts';
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

/**
 * Calls the compiler sees only as far as a domain port (an interface the domain owns), and the class that implements
 * it: every member the port declares (read from its file) reaches the same member of the class. A port this tree
 * does not have (another version's) joins nothing.
 */
const PORTS = [
  {
    port: { file: 'services/sessions/src/domain/ports.ts', name: 'Orders' },
    impl: { file: SESSIONS_ORDERS_CLIENT, name: 'OrdersClient' },
  },
  {
    port: { file: 'services/sessions/src/domain/ports.ts', name: 'Sessions' },
    impl: { file: 'services/sessions/src/store/sessions.store.ts', name: 'SessionsStore' },
  },
  {
    port: { file: 'services/orders/src/domain/ports.ts', name: 'StoredOrders' },
    impl: { file: 'services/orders/src/store/orders.store.ts', name: 'OrdersStore' },
  },
  {
    port: { file: 'services/orders/src/domain/ports.ts', name: 'StoredReferenceData' },
    impl: { file: 'services/orders/src/store/reference-data.store.ts', name: 'ReferenceDataStore' },
  },
] as const;

function portBridges(root: string): Bridge[] {
  return PORTS.flatMap(({ port, impl }) => {
    const path = join(root, port.file);
    if (!existsSync(path)) return [];
    const text = readFileSync(path, 'utf8');
    const start = text.indexOf(`export interface ${port.name} {`);
    if (start < 0) return [];
    const body = text.slice(start, text.indexOf('\n}', start));
    return [...body.matchAll(/^ {2}(\w+)[<(]/gm)].map(([, member]) => ({
      from: { file: port.file, name: `${port.name}.${member}` },
      to: [{ file: impl.file, name: `${impl.name}.${member}` }],
    }));
  });
}

/** Where each internal path prefix of orders is mounted, and the prefix its routes file leaves out. */
const ORDERS_MOUNTS = [
  { prefix: '/internal/orders', file: ORDERS_ROUTES },
  { prefix: '/internal/admin', file: REFERENCE_ROUTES },
] as const;

/**
 * Internal HTTP, from libs/contracts' INTERNAL_ROUTES: each method of sessions' orders client lands in the handler of
 * the route it names (`R.applyPayment` → orders' `POST /:orderId/payments`). A client that names no route (a version
 * before the table) is bridged by its methods' names, as that version's table did.
 */
function sessionsToOrders(root: string): Bridge[] {
  const text = readFileSync(join(root, SESSIONS_ORDERS_CLIENT), 'utf8');
  const methods = [...text.matchAll(/^ {2}(?:async )?(\w+)\(([\s\S]*?)^ {2}\}/gm)];
  const named = methods.flatMap(([, method, body]) => {
    const name = /\bR\.(\w+)\b/.exec(body ?? '')?.[1] as keyof typeof INTERNAL_ROUTES | undefined;
    const route = name && INTERNAL_ROUTES[name];
    const mount = route && ORDERS_MOUNTS.find((m) => route.path.startsWith(m.prefix));
    if (!route || !mount) return [];
    const to = { file: mount.file, route: `${route.method} ${route.path.slice(mount.prefix.length) || '/'}` };
    return [{ from: { file: SESSIONS_ORDERS_CLIENT, name: `OrdersClient.${method}` }, to: [to] }];
  });
  if (named.length > 0) return named;
  return (
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
  }));
}

/** Internal HTTP: the gateway's pass-through, then what sessions calls of orders. */
const httpBridges = (root: string): readonly Bridge[] => [
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
  ...portBridges(root),
  ...sessionsToOrders(root),
];

const paymentWalks = (root: string) =>
  ({
    /** The browser's POST through the gateway's pass-through, sessions and orders, to the Kafka send. */
    toKafka: {
      entries: [{ file: 'services/gateway/src/http/checkout-page.routes.ts', route: 'POST /checkout/*path' }],
      targets: [KAFKA_SEND],
      bridges: httpBridges(root),
    },
    /** The same request inside the sessions process only: its hosted-page handler to the Kafka send, no HTTP hop. */
    sessions: {
      entries: [HOSTED_PAGE_PAY],
      targets: [KAFKA_SEND],
      bridges: [...IN_PROCESS_BRIDGES, ...portBridges(root)],
    },
    /** The dispatcher: the consumer's parse and its batch handler, to the POST to the merchant's endpoint. */
    dispatcher: {
      entries: [
        { file: 'services/webhook-dispatcher/src/messaging/session-events.consumer.ts', name: 'parseSessionEvent' },
        {
          file: 'services/webhook-dispatcher/src/domain/record.ts',
          name: 'Recorder.recordEventsAndQueueFirstAttempts',
        },
      ],
      targets: [WEBHOOK_POST],
      // The domain calls the sender through its port (declared in domain/ports.ts, or domain/dispatcher.ts in
      // versions before it); WebhookSender is the port's one implementation.
      bridges: ['ports', 'dispatcher'].map((file) => ({
        from: { file: `services/webhook-dispatcher/src/domain/${file}.ts`, name: 'WebhookSenderPort.send' },
        to: [WEBHOOK_POST],
      })),
    },
  }) satisfies Record<string, Walk>;

export interface PaymentHops {
  toKafka: WalkResult;
  sessions: WalkResult;
  dispatcher: WalkResult;
  /** Gateway to the webhook POST: the two walks either side of Kafka together (a function counted once). */
  toWebhook: { hops: Hop[]; files: string[] };
}

export function paymentHops(root: string): PaymentHops {
  const graph = new CallGraph(root);
  const PAYMENT_WALKS = paymentWalks(root);
  const toKafka = graph.walk(PAYMENT_WALKS.toKafka);
  const sessions = graph.walk(PAYMENT_WALKS.sessions);
  const dispatcher = graph.walk(PAYMENT_WALKS.dispatcher);
  for (const [name, result, walk] of [
    ['toKafka', toKafka, PAYMENT_WALKS.toKafka],
    ['sessions', sessions, PAYMENT_WALKS.sessions],
    ['dispatcher', dispatcher, PAYMENT_WALKS.dispatcher],
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
