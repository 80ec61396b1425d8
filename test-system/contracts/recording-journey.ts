import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { AdminClient, eventually, type WebhookReceiver } from '@checkout/testing';
import type { ProcessStack } from '../../scripts/lib/process-stack';
import { client, confirmed, dashboardForm, dashboardLogin, hostedPagePay, page } from './recording-clients';

// The journey a contract recording runs (contract-recording.ts): a merchant and an operator through the public API,
// the admin API, the hosted page and the dashboard, reaching every internal route. A release is recorded with
// today's journey, so a part whose routes the release does not serve (its OpenAPI document says) is left out.

type Api = ReturnType<typeof client>;
type Session = { id: string; order: { id: string; amounts: { total: number } } };
type Endpoint = { id: string };

/** What every part of the journey works with. */
interface Journey {
  gatewayUrl: string;
  api: Api;
  receiver: WebhookReceiver;
  log: (line: string) => void;
  /** Whether the release being recorded serves this public path (its OpenAPI document lists it). */
  serves(path: string): boolean;
}

/** The organization's reference data, made through the admin API before the merchant's first call. */
interface ReferenceData {
  locationId: string;
  paymentDestination: { id: string; address: string };
}

/** Where the journey's webhook endpoints (D50) receive: apart from the sessions' callback URLs, waited for above. */
const ENDPOINT_PATH = '/hooks/endpoint';
const callbacks = (receiver: WebhookReceiver) =>
  receiver.deliveries().filter((d) => !d.path.startsWith(ENDPOINT_PATH)).length;
const items = [{ name: 'Latte', quantity: 2, unitPrice: 450 }];

/** The journey that reaches every internal route: creates, reads, edits, errors, payments, events, the dashboard. */
export async function recordingJourney(
  stack: Pick<ProcessStack, 'env'>,
  receiver: WebhookReceiver,
  log: (line: string) => void,
): Promise<void> {
  const { gatewayUrl } = stack.env;
  const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
  const org = await admin.createOrganizationWithKeys('Contract Recording Co');
  const reference = await referenceData(admin, org.organizationId, receiver, log);
  const openapi = await request(`${gatewayUrl}/v0/openapi.json`).then((r) => r.body.json());
  const paths = new Set(Object.keys((openapi as { paths?: Record<string, unknown> }).paths ?? {}));
  const j: Journey = { gatewayUrl, api: client(gatewayUrl, org.testKey), receiver, log, serves: (p) => paths.has(p) };
  const full = await orders(j, reference);
  const endpoints = await ifServed(j, '/v0/webhook_endpoints', 'webhook endpoints', () => webhookEndpoints(j));
  const paid = await paidSession(j);
  await ifServed(j, REFUNDS, 'refunds', () => refunds(j, paid.order.id));
  await ifServed(j, '/v0/balance_transactions', 'balance transactions and the balance', () => books(j, paid.order.id));
  await ifServed(j, '/v0/reports', 'reports', () => reports(j));
  await moreSessions(j, reference);
  const event = await events(j, endpoints);
  await theDashboard(j, { full, paid, event, endpoint: endpoints?.endpoint });
}

const REFUNDS = '/v0/orders/{orderId}/refunds';

/** A part of the journey, run when the release serves its route; otherwise said so, and undefined. */
async function ifServed<T>(j: Journey, path: string, what: string, part: () => Promise<T>): Promise<T | undefined> {
  if (j.serves(path)) return part();
  j.log(`recording: ${what}: not served by this release`);
  return undefined;
}

async function referenceData(
  admin: AdminClient,
  organizationId: string,
  receiver: WebhookReceiver,
  log: (line: string) => void,
): Promise<ReferenceData> {
  const orgPath = `/organizations/${organizationId}`;
  await admin.call('PATCH', `${orgPath}/checkout-settings`, {
    mode: 'test',
    defaultCallbackUrl: receiver.url('/hooks/default'),
    enabledPaymentMethods: ['card', 'stablecoin'],
    webhookSigning: true,
  });
  log('recording: reference data (gateway admin → orders)');
  const { location } = await admin.call<{ location: { id: string } }>('POST', `${orgPath}/locations`, {
    mode: 'test',
    name: 'Front counter',
  });
  await admin.call('GET', `${orgPath}/locations?mode=test`);
  const { paymentDestination } = await admin.call<{ paymentDestination: { id: string; address: string } }>(
    'POST',
    `${orgPath}/payment-destinations`,
    { mode: 'test', address: `0x${'ab12'.repeat(10)}` },
  );
  await admin.call('GET', `${orgPath}/payment-destinations?mode=test`);
  await admin.call('PATCH', `${orgPath}/payment-destinations/${paymentDestination.id}`, {
    mode: 'test',
    verified: true,
  });
  return { locationId: location.id, paymentDestination };
}

/** Orders (gateway → orders): creates, reads, edits, a cancel and the errors. Returns the fully specified one. */
async function orders({ api, log }: Journey, reference: ReferenceData): Promise<{ id: string }> {
  log('recording: orders (gateway → orders)');
  const minimal = (await api<{ order: { id: string } }>('POST', '/v0/orders', 201, { items })).body.order;
  const full = (
    await api<{ order: { id: string } }>('POST', '/v0/orders', 201, {
      items: [...items, { name: 'Cake', quantity: 1, unitPrice: 600 }],
      taxes: [{ name: 'VAT', type: 'additive', amount: 150 }],
      discounts: [
        { name: 'Regulars', type: 'fixed', amount: 100 },
        { name: 'Happy hour', type: 'percentage', amount: 10 },
      ],
      externalId: `pos-${randomBytes(4).toString('hex')}`,
      customer: { email: 'ada@example.com', name: 'Ada Lovelace', phone: '+442079460000' },
      shippingAddress: { name: 'Ada', line1: '1 Main St', city: 'London', postalCode: 'N1 9GU', country: 'GB' },
      locationId: reference.locationId,
      paymentDestination: reference.paymentDestination.id,
      metadata: { till: '3', 'odd.key$': 'kept' },
    })
  ).body.order as { id: string; externalId: string };
  await api('POST', '/v0/orders', 409, { items, externalId: full.externalId });
  await api('POST', '/v0/orders', 400, { items: [] });
  await api('GET', '/v0/orders', 200);
  await api('GET', '/v0/orders?status=open&limit=1&page=2', 200);
  await api('GET', `/v0/orders/${full.id}`, 200);
  await api('GET', `/v0/orders/ord_test_${'x'.repeat(24)}`, 404);
  await api('PATCH', `/v0/orders/${minimal.id}`, 200, { metadata: { note: 'gift' } });
  await api('POST', `/v0/orders/${minimal.id}/cancel`, 200);
  await api('PATCH', `/v0/orders/${minimal.id}`, 400, { metadata: { note: 'too late' } });
  return full;
}

/** D50's endpoints (gateway → dispatcher), subscribed before any event is made, so deliveries go to them too. */
async function webhookEndpoints({ api, receiver, log }: Journey): Promise<{ endpoint: Endpoint; narrow: Endpoint }> {
  log('recording: webhook endpoints (gateway → dispatcher; D50)');
  await api('GET', '/v0/event_types', 200);
  const endpoint = (
    await api<{ endpoint: Endpoint }>('POST', '/v0/webhook_endpoints', 201, {
      url: receiver.url(ENDPOINT_PATH),
      enabledEvents: ['*'],
      description: 'Everything',
      metadata: { team: 'ops' },
    })
  ).body.endpoint;
  const narrow = (
    await api<{ endpoint: Endpoint }>('POST', '/v0/webhook_endpoints', 201, {
      url: receiver.url(`${ENDPOINT_PATH}/refunds`),
      enabledEvents: ['refund.created', 'refund.succeeded', 'refund.failed'],
    })
  ).body.endpoint;
  await api('POST', '/v0/webhook_endpoints', 400, { url: 'not a url', enabledEvents: ['*'] });
  await api('GET', '/v0/webhook_endpoints', 200);
  await api('GET', `/v0/webhook_endpoints/${endpoint.id}`, 200);
  await api('PATCH', `/v0/webhook_endpoints/${narrow.id}`, 200, {
    description: 'Refunds and payments',
    enabledEvents: ['refund.created', 'refund.succeeded', 'refund.failed', 'order.paid'],
  });
  await api('GET', `/v0/webhook_endpoints/we_test_${'x'.repeat(24)}`, 404);
  return { endpoint, narrow };
}

/** A checkout session with the journey's items and its callback URL. */
async function createSession({ api, receiver }: Journey, extra: Record<string, unknown> = {}): Promise<Session> {
  return (
    await api<{ session: Session }>('POST', '/v0/checkout/sessions', 201, {
      items,
      callbackUrl: receiver.url('/hooks/session'),
      ...extra,
    })
  ).body.session;
}

/** A session (gateway → sessions → orders) read, edited, opened and paid in three payments, one declined. */
async function paidSession(j: Journey): Promise<Session> {
  const { api, gatewayUrl } = j;
  j.log('recording: checkout sessions (gateway → sessions → orders)');
  const paid = await createSession(j, {
    successUrl: 'https://merchant.example.com/thanks?session={SESSION_ID}',
    requireFromCustomer: { phone: true, shippingAddress: true, location: true },
    customer: { email: 'grace@example.com', name: 'Grace Hopper' },
    metadata: { channel: 'web' },
    expiresInMinutes: 30,
  });
  await api('GET', `/v0/checkout/sessions/${paid.id}`, 200);
  await api('PATCH', `/v0/checkout/sessions/${paid.id}`, 200, {
    extendExpiry: 10,
    sessionData: { cart: { id: 'c-1', lines: [1, 2] }, 'a.b': null },
  });
  // D46: an edit of a session's order reaches the session before the merchant is answered (PUT …/order).
  await api('PATCH', `/v0/orders/${paid.order.id}`, 200, { metadata: { gift: 'yes' } });
  // The hosted page asks orders for locations (requireFromCustomer.location): sessions → orders.
  await request(`${gatewayUrl}/checkout/${paid.id}`).then((r) => r.body.text());
  await api('POST', `/v0/test_helpers/checkout/sessions/${paid.id}/pay`, 200, { method: 'card', amount: 300 });
  await api('POST', `/v0/test_helpers/checkout/sessions/${paid.id}/pay`, 200, { method: 'card', outcome: 'declined' });
  await api('POST', `/v0/test_helpers/checkout/sessions/${paid.id}/pay`, 200, { method: 'stablecoin' });
  return paid;
}

/** D48, D49, D46: refunds of the paid order (gateway → orders, and the order to its session). */
async function refunds({ api, log }: Journey, orderId: string): Promise<void> {
  log('recording: refunds (gateway → orders, and the order to its session; D48, D49, D46)');
  type Refund = { id: string };
  const refundsOf = `/v0/orders/${orderId}/refunds`;
  const refund = (
    await api<{ refund: Refund }>('POST', refundsOf, 201, {
      amount: 100,
      reason: 'requested_by_customer',
      metadata: { ticket: 'T-1' },
    })
  ).body.refund;
  await api('POST', refundsOf, 400, { amount: 1_000_000 });
  const pendingRefund = (
    await api<{ refund: Refund }>('POST', `/v0/test_helpers/orders/${orderId}/refunds`, 201, {
      amount: 50,
      outcome: 'pending',
    })
  ).body.refund;
  await api('POST', `/v0/test_helpers/orders/${orderId}/refunds`, 201, { amount: 25, outcome: 'failed' });
  await api('POST', `/v0/test_helpers/refunds/${pendingRefund.id}/settle`, 200, { outcome: 'succeeded' });
  await api('GET', refundsOf, 200);
  await api('GET', `${refundsOf}?limit=1`, 200);
  await api('GET', `/v0/refunds/${refund.id}`, 200);
  await api('GET', `/v0/refunds/re_test_${'x'.repeat(24)}`, 404);
}

/**
 * D52: the books of the paid, refunded order above (gateway → orders). Its lines are built off the payment path, by
 * orders' ledger consumer: the journey waits until they are listed, so the recorded answers hold lines.
 */
async function books({ api, log }: Journey, orderId: string): Promise<void> {
  log('recording: balance transactions and the balance (gateway → orders; D52)');
  type Listed = { balanceTransactions: Array<{ id: string }> };
  const lines = await eventually(
    async () => {
      const listed = await api<Listed>('GET', `/v0/balance_transactions?orderId=${orderId}`, 200);
      return listed.body.balanceTransactions.length >= 2 && listed.body.balanceTransactions;
    },
    { deadlineMs: 20_000, intervalMs: 250, description: "the paid order's balance transactions" },
  );
  await api('GET', '/v0/balance_transactions', 200);
  await api('GET', '/v0/balance_transactions?type=refund&limit=1', 200);
  await api('GET', '/v0/balance_transactions?createdAfter=yesterday', 400);
  await api('GET', `/v0/balance_transactions/${lines[0]?.id ?? ''}`, 200);
  await api('GET', `/v0/balance_transactions/txn_test_${'x'.repeat(24)}`, 404);
  await api('GET', '/v0/balance', 200);
}

/** D52: a report of the last hour's refunds (gateway → orders), run to its end and its file read. */
async function reports({ api, log }: Journey): Promise<void> {
  log('recording: reports (gateway → orders; D52)');
  const hour = 3_600_000;
  const reportWindow = {
    type: 'refunds',
    createdAfter: new Date(Date.now() - hour).toISOString(),
    createdBefore: new Date(Date.now() + hour).toISOString(),
  };
  const report = (await api<{ report: { id: string } }>('POST', '/v0/reports', 202, reportWindow)).body.report;
  await api('POST', '/v0/reports', 400, { ...reportWindow, createdBefore: reportWindow.createdAfter });
  await api('GET', `/v0/reports/rpt_test_${'x'.repeat(24)}`, 404);
  await eventually(
    async () =>
      (await api<{ report: { status: string } }>('GET', `/v0/reports/${report.id}`, 200)).body.report.status ===
      'succeeded',
    { deadlineMs: 30_000, description: 'the recorded report to succeed' },
  );
  await api('GET', `/v0/reports/${report.id}/file`, 200);
}

/** Sessions that end otherwise: paid through the hosted page's form, expired, cancelled, left pending. */
async function moreSessions(j: Journey, reference: ReferenceData): Promise<void> {
  const { api, gatewayUrl } = j;
  // What the hosted page collects goes on to the order before the payment (sessions → orders PATCH); a customer with
  // an email takes the phone. Declined, so the session stays pending. Before the sessions below: the page's form is
  // not recorded (its reader is a browser), so a replay cannot edit the order, which must not be the newest the
  // lists show first.
  const collecting = await createSession(j, {
    customer: { email: 'katherine@example.com' },
    requireFromCustomer: { phone: true, shippingAddress: true, location: false },
  });
  await hostedPagePay(gatewayUrl, collecting.id, {
    method: 'card',
    cardNumber: '4000 0000 0000 0002',
    phone: '+12025550123',
    line1: '1 Main St',
    city: 'Springfield',
    country: 'US',
  });
  const withDestination = await createSession(j, { paymentDestination: reference.paymentDestination.address });
  await request(`${gatewayUrl}/checkout/${withDestination.id}`).then((r) => r.body.text());
  await api('POST', `/v0/test_helpers/checkout/sessions/${withDestination.id}/expire`, 200);
  const cancelled = await createSession(j);
  await api('POST', `/v0/orders/${cancelled.order.id}/cancel`, 200);
  await api('GET', `/v0/checkout/sessions/cs_test_${'x'.repeat(24)}`, 404);
  // One left pending: the document the hosted page and the expiry sweep read most.
  const pending = await createSession(j, {
    requireFromCustomer: { phone: true, shippingAddress: false, location: false },
  });
  await request(`${gatewayUrl}/checkout/${pending.id}`).then((r) => r.body.text());
}

/** Events (sessions → Kafka → dispatcher → gateway for signing secrets; gateway → dispatcher). */
async function events(
  { api, receiver, log }: Journey,
  endpoints: { endpoint: Endpoint; narrow: Endpoint } | undefined,
): Promise<{ id: string }> {
  log('recording: events (sessions → Kafka → dispatcher → gateway for signing secrets; gateway → dispatcher)');
  await eventually(() => callbacks(receiver) >= 2, {
    deadlineMs: 60_000,
    intervalMs: 250,
    description: 'the completed and expired sessions delivered',
  });
  await api('GET', '/v0/events', 200);
  // A session's event: it has a callback URL to redeliver to (D32); an order's or a refund's goes to endpoints only.
  const event = (await api<{ events: { id: string }[] }>('GET', '/v0/events?type=checkout.session.completed', 200)).body
    .events[0];
  if (!event) throw new Error('recording journey: no event recorded');
  await api('GET', `/v0/events/${event.id}`, 200);
  await api('GET', '/v0/events?limit=1&page=1', 200);
  await api('POST', `/v0/events/${event.id}/redeliver`, 202);
  await api('POST', '/v0/events/recover', 202, { since: new Date(Date.now() - 3_600_000).toISOString() });
  await api('GET', `/v0/events/evt_test_${'x'.repeat(24)}`, 404);
  if (!endpoints) return event;
  const { endpoint, narrow } = endpoints;
  // D50: to one endpoint instead of the session's callback URL; then what a disabled endpoint missed.
  await api('POST', `/v0/events/${event.id}/redeliver`, 202, { endpointId: endpoint.id });
  await api('PATCH', `/v0/webhook_endpoints/${endpoint.id}`, 200, { disabled: true });
  await api('PATCH', `/v0/webhook_endpoints/${endpoint.id}`, 200, { disabled: false });
  await api('POST', '/v0/events/recover', 202, {
    since: new Date(Date.now() - 3_600_000).toISOString(),
    endpointId: endpoint.id,
  });
  await api('POST', `/v0/webhook_endpoints/${endpoint.id}/rotate_secret`, 200);
  await api('DELETE', `/v0/webhook_endpoints/${narrow.id}`, 200);
  await api('GET', `/v0/webhook_endpoints/${narrow.id}`, 404);
  return event;
}

/** The dashboard (gateway → orders, sessions, dispatcher; D47): its pages, then its forms. */
async function theDashboard(
  j: Journey,
  seen: { full: { id: string }; paid: Session; event: { id: string }; endpoint: Endpoint | undefined },
): Promise<void> {
  const { api, gatewayUrl, receiver } = j;
  const { full, paid, event, endpoint } = seen;
  j.log('recording: the dashboard (gateway → orders, sessions, dispatcher; D47)');
  const { url } = (await api<{ url: string }>('POST', '/v0/dashboard/login_links', 201)).body;
  const cookie = await dashboardLogin(url);
  for (const path of [
    '/dashboard',
    '/dashboard/orders',
    `/dashboard/orders/${full.id}`,
    `/dashboard/orders/${paid.order.id}`,
    '/dashboard/sessions',
    `/dashboard/sessions/${paid.id}`,
    '/dashboard/events',
    `/dashboard/events/${event.id}`,
    // D52: the Balance page reads orders' per-day totals (gateway → orders, internal only).
    ...(j.serves('/v0/balance') ? ['/dashboard/balance'] : []),
    ...(endpoint ? ['/dashboard/webhook_endpoints', `/dashboard/webhook_endpoints/${endpoint.id}`] : []),
  ])
    await page(gatewayUrl, cookie, path);
  // The dashboard's forms (D47): a refund (D48, with its one-time key) and an endpoint's life (D50).
  if (j.serves(REFUNDS))
    await confirmed(gatewayUrl, cookie, `/dashboard/orders/${paid.order.id}/refund?amount=0.10&reason=duplicate`);
  if (endpoint) await endpointForms(j, cookie);
  await eventually(() => callbacks(receiver) >= 3, {
    deadlineMs: 60_000,
    intervalMs: 250,
    description: 'the redelivery delivered',
  });
}

/** D50 in the dashboard: an endpoint added, disabled, enabled, recovered, its secret rotated, its page shown. */
async function endpointForms({ gatewayUrl, receiver }: Journey, cookie: string): Promise<void> {
  const dashboard = (path: string, form: Record<string, string | string[]>, expected: number) =>
    dashboardForm(gatewayUrl, cookie, path, form, expected);
  const created = await dashboard(
    '/dashboard/webhook_endpoints',
    { url: receiver.url(`${ENDPOINT_PATH}/dashboard`), events: ['order.paid', 'refund.succeeded'] },
    200,
  );
  const added = /we_test_[0-9A-Za-z]+/.exec(created)?.[0];
  if (!added) throw new Error('recording journey: the dashboard showed no new endpoint');
  await confirmed(gatewayUrl, cookie, `/dashboard/webhook_endpoints/${added}/disable`);
  await confirmed(gatewayUrl, cookie, `/dashboard/webhook_endpoints/${added}/enable`);
  const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
  await confirmed(gatewayUrl, cookie, `/dashboard/webhook_endpoints/${added}/recover?since=${since}`);
  await confirmed(gatewayUrl, cookie, `/dashboard/webhook_endpoints/${added}/rotate_secret`);
  await page(gatewayUrl, cookie, `/dashboard/webhook_endpoints/${added}`);
}
