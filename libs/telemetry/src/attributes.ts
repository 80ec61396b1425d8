// Every attribute a span may carry, by name. Ids (requests, organizations, orders, events, deliveries), routes,
// topics, statuses and outcomes: what an SRE searches a trace by. Never a secret, a key, a card number, a URL (a
// merchant's endpoint may carry a token in its query or userinfo), a request or response body, a name, an email or
// an address, nor a checkout session id (it opens the hosted page: a capability, like a key): a name that is not
// listed here is dropped by the lib before it reaches a span, and test-e2e/src/traces.e2e.test.ts scans every
// exported span of a payment and webhook run for secrets and the session id.
const NAMES = [
  // HTTP (OpenTelemetry semantic conventions): the route pattern, never the path with its ids or query.
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'server.address',
  'peer.service',
  // Messaging (OpenTelemetry semantic conventions for Kafka).
  'messaging.system',
  'messaging.operation.type',
  'messaging.destination.name',
  'messaging.destination.partition.id',
  'messaging.consumer.group.name',
  'messaging.kafka.offset',
  'messaging.message.id',
  // Ours: the ids an operator holds (docs/operations.md, "Find a payment's trace").
  'checkout.request_id',
  'checkout.organization_id',
  'checkout.mode',
  'checkout.order_id',
  'checkout.event_id',
  'checkout.event_type',
  'checkout.delivery_id',
  'checkout.attempt',
  'checkout.outcome',
] as const;

export type SpanAttributeName = (typeof NAMES)[number];
export type SpanAttributes = Partial<Record<SpanAttributeName, string | number | boolean | null | undefined>>;
export const SPAN_ATTRIBUTES: ReadonlySet<SpanAttributeName> = new Set(NAMES);
