import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { newTenant, startStack, type Stack, type Tenant } from './harness';

// The hosted page resolved the order's payment destination whatever its state, so a destination the
// operators deactivated (or that was never verified) kept being shown, and paid, on every open checkout naming it.
// The page now resolves only the destination the order names and offers it only while orders' rule holds (active
// and verified, as when the order was created); the stablecoin payment POST refuses otherwise.

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('page_destination');
});
afterAll(async () => {
  await stack?.stop();
});

interface PageVisit {
  html: string;
  cookie: string;
  csrf: string;
}

/** GETs the hosted page as a browser would, keeping its CSRF cookie and the form's token for a POST. */
async function visit(sessionId: string, cookie?: string): Promise<PageVisit> {
  const res = await request(`${stack.sessionsUrl}/checkout/${sessionId}`, { headers: cookie ? { cookie } : {} });
  expect(res.statusCode).toBe(200);
  const html = await res.body.text();
  const setCookie = res.headers['set-cookie'];
  const fresh = (Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [])
    .map((c) => c.split(';')[0] ?? '')
    .find((c) => c.startsWith('checkout_csrf='));
  return { html, cookie: fresh ?? cookie ?? '', csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '' };
}

async function payStablecoin(sessionId: string, page: PageVisit): Promise<string> {
  const res = await request(`${stack.sessionsUrl}/checkout/${sessionId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
    body: new URLSearchParams({ csrf: page.csrf, method: 'stablecoin', amount: '1.00' }).toString(),
  });
  await res.body.dump();
  expect(res.statusCode).toBe(303);
  return String(res.headers.location);
}

async function destinationOf(tenant: Tenant, address: string): Promise<string> {
  const created = await stack.orders('POST', '/internal/admin/payment-destinations', tenant, {
    address,
    status: 'active',
    verified: true,
  });
  expect(created.status).toBe(201);
  return created.body.paymentDestination.id as string;
}

describe("The hosted page and the order's payment destination", () => {
  it.each([
    ['deactivated', { status: 'inactive' }],
    ['deleted', { status: 'deleted' }],
    ['no longer verified', { verified: false }],
  ])(
    'When the destination is %s after the session was created, then the page offers no address and no stablecoin form, says payments are unavailable, and a stablecoin POST pays nothing',
    async (_label, patch) => {
      const tenant = newTenant();
      const address = `0x${'cd34'.repeat(10)}`;
      const id = await destinationOf(tenant, address);
      const session = await stack.createSession(tenant, { paymentDestination: id });

      const before = await visit(session.id);
      expect(before.html).toContain(`data-testid="payment-address">${address}<`);
      expect(before.html).toContain('data-method="stablecoin"');

      const changed = await stack.orders('PATCH', `/internal/admin/payment-destinations/${id}`, tenant, patch);
      expect(changed.status).toBe(200);

      const after = await visit(session.id, before.cookie);
      expect(after.html).not.toContain(address);
      expect(after.html).not.toContain('data-testid="payment-qr"');
      expect(after.html).not.toContain('data-method="stablecoin"');
      expect(after.html).not.toContain('value="stablecoin"');
      expect(after.html).toMatch(/payments to this merchant are unavailable/i);
      // The other methods stay: they do not pay into the destination.
      expect(after.html).toContain('data-method="card"');

      // A form rendered before the change (or forged) is refused too.
      const location = await payStablecoin(session.id, after);
      expect(location).toBe(`/checkout/${session.id}?m=destination_unavailable`);
      const shown = await visit(session.id, after.cookie);
      expect(shown.html).toMatch(/payments to this merchant are unavailable/i);
      const stored = await stack.api('GET', `/internal/sessions/${session.id}`, tenant);
      expect(stored.body.session.order.amounts.paid).toBe(0);
      expect(stored.body.session.status).toBe('pending');
    },
  );

  it('When the destination stays active and verified, then the page shows its address and a stablecoin payment is taken', async () => {
    const tenant = newTenant();
    const address = `0x${'ef56'.repeat(10)}`;
    const id = await destinationOf(tenant, address);
    // Another destination of the organization is never shown: the page resolves only the one the order names.
    const other = `0x${'9a78'.repeat(10)}`;
    await destinationOf(tenant, other);
    const session = await stack.createSession(tenant, { paymentDestination: id });

    const page = await visit(session.id);
    expect(page.html).toContain(`data-testid="payment-address">${address}<`);
    expect(page.html).not.toContain(other);
    expect(page.html).not.toMatch(/payments to this merchant are unavailable/i);
    expect(await payStablecoin(session.id, page)).toBe(`/checkout/${session.id}?m=paid_partial`);
    const stored = await stack.api('GET', `/internal/sessions/${session.id}`, tenant);
    expect(stored.body.session.order.amounts.paid).toBe(100);
  });
});
