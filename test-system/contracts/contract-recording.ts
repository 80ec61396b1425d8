// Records the contracts between services by running a release: engines and the four services as
// processes (a release's bundles, scripts/lib/releases.ts, or this checkout), a recording proxy in front of every
// internal call (INTERNAL_CALLS), and a merchant's and an operator's journey through the public API, the admin API,
// the hosted page and the dashboard that reaches every internal route; then the documents each service stored.
// `npm run fixtures -- --contracts [--from <release>]` writes what it recorded under libs/contracts/fixtures/
// (testkit/testing contract-fixtures.ts says how they are checked).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from '@checkout/mongo';
import { request } from 'undici';
import { freePort, startEngines, type Engines } from '@checkout/engines';
import {
  AdminClient,
  eventually,
  idsIn,
  startWebhookReceiver,
  type DocumentFixture,
  type HttpFixture,
  type WebhookReceiver,
} from '@checkout/testing';
import { buildInfo } from '@checkout/config';
import { REPORT_FILES_BUCKET } from '@checkout/orders/indexes';
import { INTERNAL_CALLS, type InternalCall } from '../../scripts/lib/cluster-calls';
import { startProcessStack, type ProcessStack, type ServiceName } from '../../scripts/lib/process-stack';
import type { ServiceBuild } from '../../scripts/lib/releases';
import { routeOf } from '../soak/versions';
import { startTraceSink, type TraceSink } from '../../scripts/lib/trace-sink';

/**
 * Request headers a contract is about; the token, request id, version and transport headers are not. The trace
 * context is: a callee continues the caller's trace from it (a release that traces sends it, recorded below).
 */
const REQUEST_HEADERS = new Set([
  'traceparent',
  'tracestate',
  'x-organization-id',
  'x-mode',
  'idempotency-key',
  'x-idempotency-record',
  'x-checkout-session-id',
  'x-checkout-settings',
  'x-list-without-total',
  'content-type',
]);
const RESPONSE_HEADERS = new Set(['x-order-revision', 'x-checkout-session-id', 'retry-after', 'content-type']);

interface Recorded extends Omit<HttpFixture, 'recordedFrom' | 'route' | 'seq'> {
  at: number;
}

const pick = (headers: Record<string, string | string[] | undefined>, keep: ReadonlySet<string>) => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (keep.has(name.toLowerCase()) && value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
};
const jsonOrUndefined = (text: string): unknown => {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * A loopback proxy in front of one internal call: forwards each request to the callee unchanged and records it
 * with its answer. The hosted page and the processor's notifications, which the gateway passes through for
 * browsers and the processor, are forwarded but not recorded: their readers are not services.
 */
async function recordingProxy(
  call: InternalCall,
  target: () => string | undefined,
  sink: Recorded[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const base = target();
        if (!base) {
          res.writeHead(503).end();
          return;
        }
        const body = Buffer.concat(chunks);
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            ([n]) => !['host', 'connection', 'content-length', 'keep-alive'].includes(n),
          ),
        ) as Record<string, string>;
        try {
          const answer = await request(`${base}${req.url ?? '/'}`, {
            method: req.method as 'GET',
            headers,
            body: body.length > 0 ? body : undefined,
          });
          const text = await answer.body.text();
          const path = req.url ?? '/';
          if (!path.startsWith('/checkout/') && !path.startsWith('/internal/processor/'))
            sink.push({
              at: Date.now(),
              caller: call.caller,
              callee: call.callee,
              request: {
                method: req.method ?? 'GET',
                path,
                headers: pick(req.headers, REQUEST_HEADERS),
                ...(body.length > 0 && { body: jsonOrUndefined(body.toString('utf8')) }),
              },
              response: {
                status: answer.statusCode,
                headers: pick(answer.headers, RESPONSE_HEADERS),
                ...(text !== '' && { body: jsonOrUndefined(text) }),
              },
            });
          const out: Record<string, string | string[]> = {};
          for (const [n, v] of Object.entries(answer.headers))
            if (v !== undefined && !['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(n))
              out[n] = v;
          res.writeHead(answer.statusCode, out).end(text);
        } catch (err) {
          res.writeHead(502).end(String(err));
        }
      })();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A merchant's HTTP client for the journey: every call must answer as expected, or the recording stops. */
function client(baseUrl: string, key: string) {
  return async <T = unknown>(
    method: string,
    path: string,
    expected: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ body: T; headers: Record<string, string | string[] | undefined> }> => {
    const answer = await request(`${baseUrl}${path}`, {
      method: method as 'GET',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        // Login links and secret rotations take no Idempotency-Key: their answers are secrets (D47, D50).
        ...(method === 'POST' &&
          !path.includes('login_links') &&
          !path.endsWith('/rotate_secret') && { 'idempotency-key': randomBytes(8).toString('hex') }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode !== expected)
      throw new Error(
        `recording journey: ${method} ${path} answered ${answer.statusCode}, expected ${expected}: ${text}`,
      );
    return { body: jsonOrUndefined(text) as T, headers: answer.headers };
  };
}

/** The journey that reaches every internal route: creates, reads, edits, errors, payments, events, the dashboard. */
async function journey(stack: Pick<ProcessStack, 'env'>, receiver: WebhookReceiver, log: (line: string) => void) {
  const { gatewayUrl } = stack.env;
  const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
  const org = await admin.createOrganizationWithKeys('Contract Recording Co');
  const orgPath = `/organizations/${org.organizationId}`;
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

  const api = client(gatewayUrl, org.testKey);
  log('recording: orders (gateway → orders)');
  const items = [{ name: 'Latte', quantity: 2, unitPrice: 450 }];
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
      locationId: location.id,
      paymentDestination: paymentDestination.id,
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

  log('recording: webhook endpoints (gateway → dispatcher; D50)');
  // Subscribed before any event is made, so the dispatcher stores deliveries to an endpoint too.
  await api('GET', '/v0/event_types', 200);
  type Endpoint = { id: string };
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

  log('recording: checkout sessions (gateway → sessions → orders)');
  type Session = { id: string; order: { id: string; amounts: { total: number } } };
  const create = async (extra: Record<string, unknown> = {}) =>
    (
      await api<{ session: Session }>('POST', '/v0/checkout/sessions', 201, {
        items,
        callbackUrl: receiver.url('/hooks/session'),
        ...extra,
      })
    ).body.session;
  const paid = await create({
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
  log('recording: refunds (gateway → orders, and the order to its session; D48, D49, D46)');
  type Refund = { id: string };
  const refundsOf = `/v0/orders/${paid.order.id}/refunds`;
  const refund = (
    await api<{ refund: Refund }>('POST', refundsOf, 201, {
      amount: 100,
      reason: 'requested_by_customer',
      metadata: { ticket: 'T-1' },
    })
  ).body.refund;
  await api('POST', refundsOf, 400, { amount: 1_000_000 });
  const pendingRefund = (
    await api<{ refund: Refund }>('POST', `/v0/test_helpers/orders/${paid.order.id}/refunds`, 201, {
      amount: 50,
      outcome: 'pending',
    })
  ).body.refund;
  await api('POST', `/v0/test_helpers/orders/${paid.order.id}/refunds`, 201, { amount: 25, outcome: 'failed' });
  await api('POST', `/v0/test_helpers/refunds/${pendingRefund.id}/settle`, 200, { outcome: 'succeeded' });
  await api('GET', refundsOf, 200);
  await api('GET', `${refundsOf}?limit=1`, 200);
  await api('GET', `/v0/refunds/${refund.id}`, 200);
  await api('GET', `/v0/refunds/re_test_${'x'.repeat(24)}`, 404);
  await booksJourney(api, paid.order.id, log);
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
  // What the hosted page collects goes on to the order before the payment (sessions → orders PATCH); a customer with
  // an email takes the phone. Declined, so the session stays pending. Before the sessions below: the page's form is
  // not recorded (its reader is a browser), so a replay cannot edit the order, which must not be the newest the
  // lists show first.
  const collecting = await create({
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
  const withDestination = await create({ paymentDestination: paymentDestination.address });
  await request(`${gatewayUrl}/checkout/${withDestination.id}`).then((r) => r.body.text());
  await api('POST', `/v0/test_helpers/checkout/sessions/${withDestination.id}/expire`, 200);
  const cancelled = await create();
  await api('POST', `/v0/orders/${cancelled.order.id}/cancel`, 200);
  await api('GET', `/v0/checkout/sessions/cs_test_${'x'.repeat(24)}`, 404);
  // One left pending: the document the hosted page and the expiry sweep read most.
  const pending = await create({ requireFromCustomer: { phone: true, shippingAddress: false, location: false } });
  await request(`${gatewayUrl}/checkout/${pending.id}`).then((r) => r.body.text());

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

  log('recording: the dashboard (gateway → orders, sessions, dispatcher; D47)');
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
    '/dashboard/balance',
    '/dashboard/webhook_endpoints',
    `/dashboard/webhook_endpoints/${endpoint.id}`,
  ])
    await page(gatewayUrl, cookie, path);
  // The dashboard's forms (D47): a refund (D48, with its one-time key) and an endpoint's life (D50).
  const dashboard = (path: string, form: Record<string, string | string[]>, expected: number) =>
    dashboardForm(gatewayUrl, cookie, path, form, expected);
  await confirmed(gatewayUrl, cookie, `/dashboard/orders/${paid.order.id}/refund?amount=0.10&reason=duplicate`);
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
  await eventually(() => callbacks(receiver) >= 3, {
    deadlineMs: 60_000,
    intervalMs: 250,
    description: 'the redelivery delivered',
  });
}

/**
 * D52: the books of the paid, refunded order above (gateway → orders). Its lines are built off the payment path, by
 * orders' ledger consumer: the journey waits until they are listed, so the recorded answers hold lines.
 */
async function booksJourney(api: ReturnType<typeof client>, orderId: string, log: (line: string) => void) {
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

/** Where the journey's webhook endpoints (D50) receive: apart from the sessions' callback URLs, waited for above. */
const ENDPOINT_PATH = '/hooks/endpoint';
const callbacks = (receiver: WebhookReceiver) =>
  receiver.deliveries().filter((d) => !d.path.startsWith(ENDPOINT_PATH)).length;

/** Sends the hosted page's payment form as a customer's browser would (its CSRF cookie and token, D41). */
async function hostedPagePay(gatewayUrl: string, sessionId: string, fields: Record<string, string>): Promise<void> {
  const opened = await request(`${gatewayUrl}/checkout/${sessionId}`);
  const html = await opened.body.text();
  const set = opened.headers['set-cookie'];
  const cookie = (Array.isArray(set) ? set : set ? [set] : []).map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!csrf) throw new Error(`recording journey: the hosted page of ${sessionId} has no payment form`);
  const answer = await request(`${gatewayUrl}/checkout/${sessionId}/pay`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: unescaped(csrf), ...fields }).toString(),
  });
  await answer.body.text();
  if (answer.statusCode !== 303)
    throw new Error(`recording journey: the hosted page's payment answered ${answer.statusCode}, expected 303`);
}

/** A dashboard page, which must be shown (200): its HTML. */
async function page(gatewayUrl: string, cookie: string, path: string): Promise<string> {
  const answer = await request(`${gatewayUrl}${path}`, { headers: { cookie } });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`recording journey: ${path} answered ${answer.statusCode}`);
  return text;
}

const unescaped = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Sends a dashboard form as a browser would (with the session's CSRF token, D47): the page it answered. */
async function dashboardForm(
  gatewayUrl: string,
  cookie: string,
  path: string,
  fields: Record<string, string | string[]>,
  expected: number,
): Promise<string> {
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page(gatewayUrl, cookie, '/dashboard'))?.[1];
  if (!csrf) throw new Error('recording journey: no CSRF token on the dashboard');
  const form = new URLSearchParams({ csrf: unescaped(csrf) });
  for (const [name, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
  const answer = await request(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== expected)
    throw new Error(`recording journey: POST ${path} answered ${answer.statusCode}, expected ${expected}: ${text}`);
  return text;
}

/** Opens a dashboard confirm page and sends its form (not the log-out one) as shown: 200 or a redirect. */
async function confirmed(gatewayUrl: string, cookie: string, path: string): Promise<void> {
  const html = await page(gatewayUrl, cookie, path);
  const form = [...html.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)].find(
    (m) => m[1] !== '/dashboard/logout',
  );
  if (!form) throw new Error(`recording journey: ${path} has no form to confirm`);
  const fields = new URLSearchParams();
  for (const [, name, value] of (form[2] as string).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields.append(unescaped(name as string), unescaped(value as string));
  const answer = await request(new URL(unescaped(form[1] as string), gatewayUrl).toString(), {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200 && answer.statusCode !== 303)
    throw new Error(`recording journey: confirming ${path} answered ${answer.statusCode}: ${text}`);
}

/**
 * Opens a dashboard login link and returns the session cookie. A link opened with GET may log in at once (1.0.0)
 * or answer a page whose form POSTs to log in (a link's GET must not consume it), with a cookie that proves the
 * form came from that page: both are followed.
 */
async function dashboardLogin(url: string): Promise<string> {
  // `name=value` of each cookie set with a value (one set empty is being cleared).
  const cookiesOf = (headers: Record<string, string | string[] | undefined>) => {
    const set = headers['set-cookie'];
    return (Array.isArray(set) ? set : set ? [set] : [])
      .map((c) => c.split(';')[0] as string)
      .filter((c) => /^[^=]+=.+/.test(c));
  };
  const opened = await request(url);
  const page = await opened.body.text();
  const fromPage = cookiesOf(opened.headers);
  const form = /<form[^>]*method="post"[^>]*action="([^"]+)"|<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(page);
  if (!form) {
    if (fromPage[0]) return fromPage[0];
    throw new Error(`recording journey: the dashboard login link gave no session nor form (${opened.statusCode})`);
  }
  const action = form[1] ?? form[2] ?? new URL(url).pathname;
  const fields = [...page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi)].map(
    (m) => `${encodeURIComponent(m[1] as string)}=${encodeURIComponent(m[2] as string)}`,
  );
  const posted = await request(new URL(action, url).toString(), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(fromPage.length > 0 && { cookie: fromPage.join('; ') }),
    },
    body: fields.join('&'),
  });
  await posted.body.text();
  const names = new Set(fromPage.map((c) => c.split('=')[0]));
  const cookie = cookiesOf(posted.headers).find((c) => !names.has(c.split('=')[0]));
  if (!cookie) throw new Error(`recording journey: the dashboard login link gave no session (${posted.statusCode})`);
  return cookie;
}

/** Values that are secrets, replaced by placeholders of the same form before anything is committed. */
function redacted(value: unknown): unknown {
  if (typeof value === 'string') {
    if (/^whsec_/.test(value)) return `whsec_${'0'.repeat(32)}`;
    if (/^sk_(test|live)_/.test(value)) return value.replace(/^(sk_(?:test|live)_).*/, `$1${'0'.repeat(48)}`);
    if (/^[0-9a-f]{64}$/.test(value)) return '0'.repeat(64);
    return value;
  }
  if (Array.isArray(value)) return value.map(redacted);
  if (value && typeof value === 'object' && !(value instanceof Date))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redacted(v)]));
  return value;
}

/** The databases of a stack, by the service that owns each (stack-env's `<prefix>_<name>`). */
const DATABASES: Record<string, ServiceName> = {
  orders: 'orders',
  sessions: 'sessions',
  webhooks: 'webhook-dispatcher',
  gateway: 'gateway',
};
/**
 * Collections with no shape another version reads, or none once the journey is over (contract-coverage.test.ts), and
 * the reports' GridFS bucket, whose documents are the driver's format, not ours (its ids and bytes are BSON values a
 * fixture has no form for).
 */
const NOT_CONTRACTS = new Set([
  'leases',
  'balance_queue',
  `${REPORT_FILES_BUCKET}.files`,
  `${REPORT_FILES_BUCKET}.chunks`,
]);

export interface ContractRecording {
  recordedFrom: string;
  interactions: HttpFixture[];
  documents: DocumentFixture[];
}

/** Runs `build` (a release's bundles, or this checkout's sources), records its internal calls and documents. */
export async function recordContracts(options: {
  build?: ServiceBuild;
  log: (line: string) => void;
}): Promise<ContractRecording> {
  const { log } = options;
  const build = options.build ?? { ...buildInfo() };
  const recordedFrom = `${build.version} (${build.commit.slice(0, 12)}), recorded ${new Date().toISOString().slice(0, 16)}Z`;
  const namePrefix = `contracts_${randomBytes(3).toString('hex')}`;
  const sink: Recorded[] = [];
  let engines: Engines | undefined;
  let stack: ProcessStack | undefined;
  let receiver: WebhookReceiver | undefined;
  let traces: TraceSink | undefined;
  const proxies: Array<{ close(): Promise<void> }> = [];
  let mongo: MongoClient | undefined;
  try {
    engines = await startEngines({ log: (line) => log(`engines: ${line}`) });
    receiver = await startWebhookReceiver();
    // Traced as in production (a release older than tracing ignores the setting): internal calls carry
    // `traceparent` and outbox rows their trace context, so a recording shows what a later release meets.
    traces = await startTraceSink();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: traces.endpoint };
    let urls: (Record<ServiceName, string> & { admin: string }) | undefined;
    const extraEnv: Record<'gateway' | 'orders' | 'sessions' | 'dispatcher', Record<string, string>> = {
      gateway: { ...otel },
      orders: { ...otel },
      sessions: { ...otel },
      dispatcher: { ...otel },
    };
    for (const call of INTERNAL_CALLS) {
      const proxy = await recordingProxy(
        call,
        () => (urls ? (call.listener === 'gateway-admin' ? urls.admin : urls[call.callee]) : undefined),
        sink,
      );
      proxies.push(proxy);
      extraEnv[call.caller === 'webhook-dispatcher' ? 'dispatcher' : call.caller][call.env] = proxy.url;
    }
    stack = await startProcessStack({
      mongoUrl: engines.mongoUrl,
      kafkaBrokers: engines.kafkaBrokers,
      namePrefix,
      logDir: join(tmpdir(), `checkout-contracts-${namePrefix}`),
      logLevel: 'warn',
      extraEnv,
      ...(build.bundleDir !== undefined && { bundleDir: build.bundleDir }),
      onUrls: (u) => {
        urls = u;
      },
    });
    log(`recording: ${build.version} running; service logs in ${stack.logDir}`);
    await journey(stack, receiver, log);

    mongo = new MongoClient(engines.mongoUrl);
    const documents: DocumentFixture[] = [];
    for (const [db, service] of Object.entries(DATABASES)) {
      const database = mongo.db(`${namePrefix}_${db}`);
      for (const { name } of await database.listCollections({}, { nameOnly: true }).toArray()) {
        if (NOT_CONTRACTS.has(name)) continue;
        for (const document of await database.collection(name).find({}).sort({ _id: 1 }).toArray())
          documents.push({
            recordedFrom,
            service,
            collection: name,
            document: redacted(document) as Record<string, unknown>,
          });
      }
    }
    return {
      recordedFrom,
      interactions: sink
        .sort((a, b) => a.at - b.at)
        .map((r, i) => ({
          recordedFrom,
          caller: r.caller,
          callee: r.callee,
          route: routeOf(r.request.method, r.request.path),
          seq: i + 1,
          request: redacted(r.request) as HttpFixture['request'],
          response: redacted(r.response) as HttpFixture['response'],
        })),
      documents,
    };
  } finally {
    await mongo?.close().catch(() => {});
    await stack?.stop().catch(() => {});
    for (const proxy of proxies) await proxy.close().catch(() => {});
    await receiver?.close().catch(() => {});
    await traces?.close().catch(() => {});
    await engines?.stop().catch(() => {});
  }
}

/**
 * Whether a document is where an id comes from: its _id is (or names) it, or, for any id but the organization's
 * (which every document names), a top-level reference to it (a delivery's eventId, shown with its event).
 */
function holds(d: DocumentFixture, id: string): boolean {
  if (String(d.document._id).includes(id)) return true;
  return !id.startsWith('org_') && Object.entries(d.document).some(([k, v]) => k.endsWith('Id') && v === id);
}

/**
 * What of a recording to commit, given what is committed. When any interaction has a shape no committed fixture
 * has, the whole recording's interactions: a replay runs one recording's calls in order, and each call needs the
 * state the ones before it made (the order a list shows, the cancel before the edit it refuses). Documents: every
 * shape not committed; those holding an id a kept request or answer names that no earlier write to that callee
 * answered with (the events the dispatcher recorded from Kafka, which its lists show and its reads name; the
 * organization the gateway keeps), which a replay stores first; and those a kept document names by a top-level
 * `…Id` (a delivery's event), which a reader of it reads too. An id a read answered with was read, not made.
 */
export function selectNew(
  recording: ContractRecording,
  committed: { http: readonly HttpFixture[]; documents: readonly DocumentFixture[] },
  shapes: { http: (f: HttpFixture) => string; document: (f: DocumentFixture) => string },
): ContractRecording {
  const knownHttp = new Set(committed.http.map((f) => shapes.http(f)));
  const knownDocs = new Set(committed.documents.map((d) => shapes.document(d)));
  const anyNew = recording.interactions.some((f) => !knownHttp.has(shapes.http(f)));
  const interactions = anyNew ? recording.interactions : [];
  const keptDocs = new Set<DocumentFixture>();
  const seenDocShapes = new Set<string>();
  for (const d of recording.documents) {
    const shape = shapes.document(d);
    if (knownDocs.has(shape) || seenDocShapes.has(shape)) continue;
    seenDocShapes.add(shape);
    keptDocs.add(d);
  }
  const organization = [...idsIn(recording.interactions[0]?.request.headers)].find((id) => id.startsWith('org_'));
  for (const f of interactions)
    for (const id of idsIn([f.request.path, f.request.body, f.request.headers, f.response.body])) {
      if (id === organization && f.callee !== 'gateway') continue;
      const made = recording.interactions.some(
        (e) =>
          e.callee === f.callee &&
          e.request.method !== 'GET' &&
          e.seq <= f.seq &&
          idsIn([e.response.body, e.response.headers]).has(id),
      );
      if (made) continue;
      for (const d of recording.documents) if (d.service === f.callee && holds(d, id)) keptDocs.add(d);
    }
  for (const kept of [...keptDocs])
    for (const [key, id] of Object.entries(kept.document))
      if (key.endsWith('Id') && key !== 'organizationId' && typeof id === 'string')
        for (const d of recording.documents)
          if (d.service === kept.service && String(d.document._id).includes(id)) keptDocs.add(d);
  return {
    recordedFrom: recording.recordedFrom,
    interactions,
    documents: recording.documents.filter((d) => keptDocs.has(d)),
  };
}
