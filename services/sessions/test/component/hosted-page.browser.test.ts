import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { eventually } from '@checkout/testing';
import { newTenant, startStack, type Stack, type Tenant } from './harness';

// Hosted page through a real browser (Chromium via playwright-core; scripts/ensure-chromium.sh installs it).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = 'test-results/screenshots';

let stack: Stack;
let browser: Browser;
let merchant: Server;
let merchantUrl: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  stack = await startStack('page');
  merchant = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>Thanks</title><h1>Thanks from the merchant</h1><p id="path">${req.url}</p>`);
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  merchant?.close();
  await stack?.stop();
});

/** Waits until the open page shows `status`, swapped in by its poller (no reload). */
const statusShown = (page: Page, status: string, description: string) =>
  eventually(
    async () =>
      (await page
        .getByTestId('status')
        .getAttribute('data-status')
        .catch(() => null)) === status,
    { deadlineMs: 10_000, description },
  );

/** Sessions here send the customer to the test's merchant server after payment. */
function createSession(tenant: Tenant, overrides: Record<string, unknown> = {}) {
  return stack.createSession(tenant, { successUrl: `${merchantUrl}/thanks/{SESSION_ID}`, ...overrides });
}

/** Presses Pay and waits for the page the POST leads to (the page again with a notice, or the merchant's). */
async function payAndLand(page: Page, url: string | RegExp): Promise<void> {
  await page.getByRole('button', { name: /Pay/ }).click();
  await page.waitForURL(url);
}

/** A new tenant's new session (with `overrides`), open in a new page. */
async function openNew(overrides: Record<string, unknown> = {}) {
  const tenant = newTenant();
  const session = await createSession(tenant, overrides);
  return { tenant, session, page: await open(session.id) };
}

async function open(sessionId: string, viewport = { width: 390, height: 844 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  const res = await page.goto(`${stack.sessionsUrl}/checkout/${sessionId}`);
  expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res?.headers()['cache-control']).toBe('no-store');
  return page;
}

describe('GET /checkout/:id (D26, D41)', () => {
  it('When paying with 4242…, then the customer lands on successUrl and the session is completed', async () => {
    const { tenant, session, page } = await openNew();
    await expect(page.getByRole('heading', { name: 'Acme Coffee' }).isVisible()).resolves.toBe(true);
    expect(await page.getByTestId('total').textContent()).toBe('$12.23');
    expect(await page.getByText('Flat white').isVisible()).toBe(true);
    expect(await page.getByText('Loyalty').isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/pending.png`, fullPage: true });
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: /Pay \$12\.23/ }).click();
    await page.waitForURL(`${merchantUrl}/thanks/${session.id}`);
    expect(await page.locator('h1').textContent()).toBe('Thanks from the merchant');
    const read = await stack.api('GET', `/internal/sessions/${session.id}`, tenant);
    expect(read.body.session.status).toBe('completed');
    // Back on the page: the completed state, no form.
    await page.goto(`${stack.sessionsUrl}/checkout/${session.id}`);
    expect(await page.getByTestId('status').getAttribute('data-status')).toBe('completed');
    expect(await page.getByLabel('Card number').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/completed.png`, fullPage: true });
    await page.close();
  });

  it('When the card is declined or not a test card, then a clear message; failedAttempts counts declines', async () => {
    const { tenant, session, page } = await openNew();
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await payAndLand(page, /m=declined/);
    expect(await page.getByRole('alert').textContent()).toContain('declined');
    expect(await page.getByTestId('failed-attempts').textContent()).toContain('1 declined');
    await page.screenshot({ path: `${SHOTS}/declined.png`, fullPage: true });
    await page.getByLabel('Card number').fill('5555 5555 5555 4444');
    await payAndLand(page, /m=not_test_card/);
    expect(await page.getByRole('alert').textContent()).toContain('not a test card');
    const read = await stack.api('GET', `/internal/sessions/${session.id}`, tenant);
    expect(read.body.session).toMatchObject({ status: 'pending', failedAttempts: 1 });
    await page.close();
  });

  it('When requireFromCustomer asks for phone and address, then they are required and stored before payment', async () => {
    const tenant = newTenant();
    const session = await createSession(tenant, {
      requireFromCustomer: { phone: true, shippingAddress: true },
      customer: { email: 'ann@example.com' },
    });
    const page = await open(session.id);
    await page.getByLabel('Card number').fill('4242424242424242');
    await payAndLand(page, /m=required/);
    expect(await page.getByRole('alert').textContent()).toContain('required');
    await page.getByLabel('Phone number').fill('+1 415 555 0123');
    await page.getByLabel('Address line 1').fill('1 Market St');
    await page.getByLabel('City').fill('San Francisco');
    await page.getByLabel('Country code').fill('US');
    await page.screenshot({ path: `${SHOTS}/required-inputs.png`, fullPage: true });
    await page.getByLabel('Card number').fill('4242424242424242');
    await payAndLand(page, `${merchantUrl}/thanks/${session.id}`);
    const read = (await stack.api('GET', `/internal/sessions/${session.id}`, tenant)).body.session;
    expect(read.order.shippingAddress).toMatchObject({ line1: '1 Market St', city: 'San Francisco', country: 'US' });
    expect(read.order.customer.phone).toBe('+1 415 555 0123');
    await page.close();
  });

  it('When a stablecoin pays part, then paid and remaining are shown and the page updates when the rest arrives elsewhere', async () => {
    const { tenant, session, page } = await openNew();
    await page.getByLabel('Stablecoin').check();
    await page.getByLabel('Amount to pay (USD)').fill('5.00');
    await payAndLand(page, /m=paid_partial/);
    expect(await page.getByTestId('paid').textContent()).toBe('$5.00');
    expect(await page.getByTestId('remaining').textContent()).toBe('$7.23');
    await page.screenshot({ path: `${SHOTS}/partial.png`, fullPage: true });
    // More is paid through the API; the page's poller shows it in place, without a reload (the marker survives).
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {
      method: 'stablecoin',
      amount: 200,
    });
    await eventually(
      async () =>
        (await page
          .getByTestId('paid')
          .textContent()
          .catch(() => null)) === '$7.00',
      { deadlineMs: 10_000, description: 'paid amount to update' },
    );
    expect(await page.getByTestId('remaining').textContent()).toBe('$5.23');
    await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, { method: 'stablecoin' });
    await statusShown(page, 'completed', 'page to show completed');
    expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.locator('#live-status').textContent()).toBe('Payment received');
    expect(page.url()).toBe(`${stack.sessionsUrl}/checkout/${session.id}`);
    await page.close();
  });

  it('When expired, cancelled or unknown, then each is shown clearly without a payment form', async () => {
    const tenant = newTenant();
    const expired = await createSession(tenant);
    await stack.api('POST', `/internal/test-helpers/sessions/${expired.id}/expire`, tenant);
    const p1 = await open(expired.id);
    expect(await p1.getByTestId('status').getAttribute('data-status')).toBe('expired');
    expect(await p1.getByRole('button', { name: /Pay/ }).count()).toBe(0);
    await p1.screenshot({ path: `${SHOTS}/expired.png`, fullPage: true });
    await p1.close();

    const cancelled = await createSession(tenant);
    await stack.orders('POST', `/internal/orders/${cancelled.order.id}/cancel`, tenant);
    // Sessions learns of the cancel from orders' order.cancelled event (D25), a moment after orders answered.
    await eventually(
      async () =>
        (await stack.api('GET', `/internal/sessions/${cancelled.id}`, tenant)).body.session.status === 'cancelled',
      {
        deadlineMs: 10_000,
        description: 'the session cancelled with its order',
      },
    );
    const p2 = await open(cancelled.id);
    expect(await p2.getByTestId('status').getAttribute('data-status')).toBe('cancelled');
    await p2.screenshot({ path: `${SHOTS}/cancelled.png`, fullPage: true });
    await p2.close();

    const p3 = await browser.newPage();
    const res = await p3.goto(`${stack.sessionsUrl}/checkout/cs_test_doesnotexist000000000000`);
    expect(res?.status()).toBe(404);
    expect(await p3.getByRole('heading', { name: 'Checkout not found' }).isVisible()).toBe(true);
    await p3.screenshot({ path: `${SHOTS}/not-found.png`, fullPage: true });
    await p3.close();
  });

  it('When a pending page is open, then a countdown to expiresAt ticks, and an expiry elsewhere shows without a reload', async () => {
    const { tenant, session, page } = await openNew({ expiresInMinutes: 15 });
    const countdown = page.getByTestId('countdown');
    expect(await countdown.isVisible()).toBe(true);
    expect(await countdown.getAttribute('data-expires-at')).toBe(session.expiresAt);
    const first = (await countdown.textContent()) ?? '';
    expect(first).toMatch(/^1[45]:[0-5]\d$/);
    // It ticks: the text changes by itself (a one-second interval, so within a few seconds).
    await eventually(async () => ((await countdown.textContent()) ?? first) !== first, {
      deadlineMs: 5_000,
      description: 'the countdown to tick',
    });
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/expire`, tenant);
    await statusShown(page, 'expired', 'page to show expired');
    expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.getByRole('button', { name: /Pay/ }).count()).toBe(0);
    expect(await page.getByTestId('countdown').count()).toBe(0);
    await page.close();
  });

  it('When the method is stablecoin and the order has a destination, then a QR code of its address is shown (scanned back here)', async () => {
    const tenant = newTenant();
    const address = `0x${'ab12'.repeat(10)}`;
    const created = await stack.orders('POST', '/internal/admin/payment-destinations', tenant, {
      address,
      status: 'active',
      verified: true,
    });
    expect(created.status).toBe(201);
    const session = await createSession(tenant, { paymentDestination: created.body.paymentDestination.id });
    const page = await open(session.id);
    await page.getByLabel('Stablecoin').check();
    const qr = page.getByTestId('payment-qr');
    expect(await qr.isVisible()).toBe(true);
    expect(await page.getByTestId('payment-address').textContent()).toBe(address);
    expect(await page.getByRole('img', { name: 'QR code of the payment address' }).isVisible()).toBe(true);
    const png = PNG.sync.read(await qr.locator('svg').screenshot());
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(address);
    await page.screenshot({ path: `${SHOTS}/stablecoin-qr.png`, fullPage: true });
    // The card method hides it; a session without a destination has none.
    await page.getByLabel('Card', { exact: true }).check();
    expect(await qr.isVisible()).toBe(false);
    const plain = await open((await createSession(tenant)).id);
    expect(await plain.getByTestId('payment-qr').count()).toBe(0);
    await plain.close();
    await page.close();
  });

  it('When a POST carries no valid CSRF token, then 403 and nothing is paid', async () => {
    const tenant = newTenant();
    const session = await createSession(tenant);
    const res = await fetch(`${stack.sessionsUrl}/checkout/${session.id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'method=card&cardNumber=4242424242424242&csrf=forged',
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    const read = await stack.api('GET', `/internal/sessions/${session.id}`, tenant);
    expect(read.body.session.status).toBe('pending');
  });
});
