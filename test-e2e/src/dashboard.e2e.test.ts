import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Checkout } from '@checkout/sdk';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { uniqueId } from './support/factories';
import { paidSessionWithFailedDelivery } from './support/webhooks';

// D47 through a real browser (Chromium via playwright-core, as for the hosted page) against the full stack: a
// merchant logs in with a link made through the API, finds a failed webhook delivery and its attempts,
// redelivers it once the endpoint is fixed and watches it succeed. Every page passes axe-core with no serious
// or critical violation, works at 375 px, and is saved as a screenshot at 1280 and 375 px when
// DASHBOARD_SCREENSHOTS_DIR is set. Tenancy: another organization's ids are "not found", a live session sees
// no test data.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = process.env.DASHBOARD_SCREENSHOTS_DIR;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DEADLINE = { deadlineMs: 30_000, intervalMs: 200 };

let stack: InProcessStack;
let receiver: WebhookReceiver;
let browser: Browser;

beforeAll(async () => {
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  receiver = await startWebhookReceiver();
  stack = await startStack({
    webhookRetryDelaysMs: '100,200,400,800',
    extraEnv: {
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
      dispatcher: { WEBHOOK_MAX_ATTEMPTS: '2' },
    },
  });
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
  await stack?.stop();
  await receiver?.close();
});

async function newMerchant(prefix: string) {
  const name = uniqueId(prefix);
  const org = await stack.admin.createOrganizationWithKeys(name);
  return {
    ...org,
    name,
    test: new Checkout(org.testKey, { baseUrl: stack.gatewayUrl }),
    live: new Checkout(org.liveKey, { baseUrl: stack.gatewayUrl }),
  };
}

/** A paid session whose webhook to `path` has failed (every attempt used). */
function failedDelivery(client: Checkout, path: string) {
  return paidSessionWithFailedDelivery(client, receiver, path);
}

/** Opens a fresh browser context logged in through a link made with `client`'s key: its page, then its button. */
async function loggedIn(client: Checkout, screenshot?: string): Promise<{ context: BrowserContext; page: Page }> {
  const { url, expiresAt } = await client.dashboard.loginLinks.create();
  expect(new Date(expiresAt).getTime()).toBeGreaterThan(Date.now());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  if (screenshot) await checkPage(page, screenshot);
  await logIn(page);
  return { context, page };
}

async function logIn(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/dashboard`);
}

/** axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern). */
async function expectAccessible(page: Page, name: string): Promise<void> {
  const violations = await page.evaluate<{ id: string; impact: string | null; help: string; nodes: string[] }[]>(
    `${AXE_SOURCE};\naxe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`,
  );
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${name}: ${JSON.stringify(serious, null, 1)}`).toEqual([]);
}

/** Accessible, fits 375 px without sideways scrolling, and saved at both widths when asked for. */
async function checkPage(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 375, height: 812 });
  // A string: the test package has no DOM types (it runs in the browser).
  const overflow = await page.evaluate<number>(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  );
  expect(overflow, `${name} scrolls sideways at 375 px`).toBeLessThanOrEqual(0);
  await expectAccessible(page, `${name} at 375 px`);
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}-375.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('the merchant dashboard in a browser (D47)', () => {
  it('When a merchant logs in with a link, finds a failed delivery and its attempts, fixes the endpoint and redelivers, then the new delivery succeeds; every page is accessible', async () => {
    const merchant = await newMerchant('Dashboard Org');
    const path = `/hooks/${uniqueId('dash')}`;
    const { session, eventId } = await failedDelivery(merchant.test, path);
    const { context, page } = await loggedIn(merchant.test, 'login');

    // Overview: the banner says which mode, the charts have text alternatives.
    await expect(page.getByRole('note').textContent()).resolves.toContain('TEST MODE');
    await expect(page.getByRole('heading', { level: 1, name: 'Overview' }).isVisible()).resolves.toBe(true);
    await expect(
      page.getByRole('img', { name: /Success rate and p95 duration per callback host/ }).isVisible(),
    ).resolves.toBe(true);
    await expect(page.getByRole('img', { name: /Payments per hour/ }).isVisible()).resolves.toBe(true);
    expect(await page.locator('table').first().textContent()).toContain('127.0.0.1');
    // Keyboard: the first Tab reaches the skip link.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Skip to content');
    await checkPage(page, 'overview');

    // Events list → the event → its failed delivery with each attempt's status code, duration and error.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Events' }).click();
    await page.waitForURL(/\/dashboard\/events$/);
    await checkPage(page, 'events');
    // The failed delivery is listed at the top, with the endpoint's last answer.
    const failedTable = page.getByRole('table', { name: 'Most recent failed deliveries' });
    expect(await failedTable.getByRole('row').filter({ hasText: eventId }).textContent()).toContain('HTTP 500');
    await failedTable.getByRole('link', { name: eventId }).click();
    await page.waitForURL(new RegExp(`/dashboard/events/${eventId}$`));
    const failed = page.locator('section.delivery[data-delivery-status="failed"]');
    await expect(failed.count()).resolves.toBe(1);
    const attempts = failed.locator('ol.timeline li');
    await expect(attempts.count()).resolves.toBe(2);
    expect(await attempts.first().textContent()).toMatch(/^Attempt 1 at .* UTC: HTTP 500, \d+ ms$/);
    await checkPage(page, 'event-failed');

    // Fix the endpoint, then redeliver through the confirm step.
    receiver.answer(path, ANSWER.ok);
    await page.getByRole('link', { name: 'Redeliver this event…' }).click();
    await page.waitForURL(new RegExp(`/dashboard/events/${eventId}/redeliver$`));
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Redeliver this event?');
    await checkPage(page, 'redeliver-confirm');
    await page.getByRole('button', { name: 'Yes, redeliver' }).click();
    await page.waitForURL(new RegExp(`/dashboard/events/${eventId}\\?m=redelivered$`));
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('section.delivery[data-delivery-status="succeeded"]').count()) === 1;
      },
      { ...DEADLINE, description: 'the redelivery to show as succeeded' },
    );
    expect(
      await page.locator('section.delivery[data-delivery-status="succeeded"] ol.timeline li').first().textContent(),
    ).toMatch(/HTTP 200, \d+ ms$/);
    expect(
      receiver
        .deliveries(path)
        .filter((r) => r.headers['x-service-event-id'] === eventId)
        .at(-1)?.headers['x-service-event-id'],
    ).toBe(eventId);
    await checkPage(page, 'event-redelivered');

    // Orders (with a filter), the order, sessions, the session with its history.
    await page.goto(`${stack.gatewayUrl}/dashboard/orders`);
    await page.getByLabel('Payment status').selectOption('paid');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/paymentStatus=paid/);
    await expect(page.getByRole('link', { name: session.order.id }).isVisible()).resolves.toBe(true);
    await checkPage(page, 'orders');
    await page.getByLabel('External id').fill('no-such-external-id');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/externalId=no-such-external-id/);
    expect(await page.locator('table tbody').textContent()).toContain('No orders match.');
    await page.goto(`${stack.gatewayUrl}/dashboard/orders/${session.order.id}`);
    expect(await page.getByRole('table', { name: 'Payments' }).textContent()).toMatch(/pay_test_\w+card\$\d/);
    await checkPage(page, 'order');
    await page.goto(`${stack.gatewayUrl}/dashboard/sessions`);
    await checkPage(page, 'sessions');
    await page.getByRole('link', { name: session.id }).click();
    await page.waitForURL(new RegExp(`/dashboard/sessions/${session.id}$`));
    const history = await page.locator('ol.timeline').textContent();
    expect(history).toContain('Created (pending)');
    expect(history).toContain('Event checkout.session.completed');
    await checkPage(page, 'session');

    // Recover: the form, the confirm step, and the answer on the events page.
    await page.goto(
      `${stack.gatewayUrl}/dashboard/recover?since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString().slice(0, 16))}`,
    );
    await checkPage(page, 'recover-confirm');
    await page.getByRole('button', { name: 'Yes, send them again' }).click();
    await page.waitForURL(/\/dashboard\/events\?recovering=\d+$/);
    expect(await page.getByRole('status').textContent()).toMatch(/Recovery started: \d+ failed deliveries/);
    await context.close();
  });

  it("When a merchant refunds part of a paid order from its page, then it goes through the confirm step, is listed on the order and in its session's order (D46, D48); the form sent twice is one refund; without the CSRF token nothing happens", async () => {
    const merchant = await newMerchant('Dashboard Refund Org');
    const session = await merchant.test.checkoutSessions.create({
      items: [{ name: 'Latte', quantity: 2, unitPrice: 450 }],
    });
    await merchant.test.testHelpers.checkoutSessions.pay(session.id);
    const { context, page } = await loggedIn(merchant.test);
    const orderUrl = `${stack.gatewayUrl}/dashboard/orders/${session.order.id}`;
    await page.goto(orderUrl);
    expect(await page.getByRole('table', { name: 'Refunds, newest first' }).textContent()).toContain('No refunds.');
    await page.getByRole('textbox', { name: /^Amount/ }).fill('2.50');
    await page.getByLabel('Reason').selectOption('requested_by_customer');
    await page.getByRole('button', { name: 'Refund…' }).click();
    await page.waitForURL(new RegExp(`/dashboard/orders/${session.order.id}/refund\\?`));
    expect(await page.locator('main').textContent()).toContain('Refund $2.50 of order');
    await checkPage(page, 'refund-confirm');
    const form = page.locator('main form');
    const fields = {
      csrf: (await form.locator('input[name=csrf]').getAttribute('value')) ?? '',
      key: (await form.locator('input[name=key]').getAttribute('value')) ?? '',
      amount: (await form.locator('input[name=amount]').getAttribute('value')) ?? '',
    };
    expect(fields.amount).toBe('250');
    await page.getByRole('button', { name: 'Yes, refund' }).click();
    await page.waitForURL(`${orderUrl}?m=refunded`);
    const refunds = await page.getByRole('table', { name: 'Refunds, newest first' }).textContent();
    expect(refunds).toMatch(/re_test_\w+succeeded\$2\.50requested by customer/);
    expect(await page.getByRole('table', { name: 'Amounts' }).textContent()).toContain('Refunded$2.50');
    await checkPage(page, 'order-refunded');

    // The same form again (a double submit, a reload of the POST): the same refund, not a second one.
    const again = await page.request.post(`${orderUrl}/refund`, { form: fields, maxRedirects: 0 });
    expect(again.status()).toBe(303);
    // No CSRF token: refused before anything is done.
    const forged = await page.request.post(`${orderUrl}/refund`, {
      form: { amount: '100', key: 'forged-key-0123456789' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    const listed = await merchant.test.refunds.list(session.order.id).toArray();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ amount: 250, status: 'succeeded', reason: 'requested_by_customer' });
    const copy = (await merchant.test.checkoutSessions.retrieve(session.id)).order;
    expect(copy).toMatchObject({ paymentStatus: 'partially_refunded', amounts: { refunded: 250 } });

    // An amount the form cannot read is said so, with nothing done.
    await page.goto(`${orderUrl}/refund?amount=abc`);
    expect(await page.locator('main').textContent()).toContain('Give the amount to refund like 12.50');
    await context.close();
  });

  it('When a link is opened, then its page names the organization and nothing is used until the button; once used, the browser gets the clear refusal page', async () => {
    const merchant = await newMerchant('Used Link Org');
    const { url } = await merchant.test.dashboard.loginLinks.create();
    // A link scanner (another browser, or a HEAD) opens it first: nothing happens.
    const scanner = await browser.newContext();
    const scanned = await (await scanner.newPage()).goto(url);
    expect(scanned?.status()).toBe(200);
    expect((await scanner.cookies()).map((c) => c.name)).toEqual(['checkout_dashboard_login']);
    await scanner.close();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Log in to the dashboard');
    expect(await page.locator('main').textContent()).toContain(merchant.name);
    await logIn(page);
    const again = await page.goto(url);
    expect(again?.status()).toBe(410);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This login link cannot be used');
    await checkPage(page, 'link-refused');
    await context.close();
  });

  it("When another organization's order, session or event id is opened, then a not-found page (404), as for unknown ids (D4)", async () => {
    const owner = await newMerchant('Owner Org');
    const { session, eventId } = await failedDelivery(owner.test, `/hooks/${uniqueId('own')}`);
    const other = await newMerchant('Other Org');
    const { context, page } = await loggedIn(other.test);
    for (const target of [
      `orders/${session.order.id}`,
      `sessions/${session.id}`,
      `events/${eventId}`,
      `events/${eventId}/redeliver`,
      'orders/ord_test_unknown',
    ]) {
      const answer = await page.goto(`${stack.gatewayUrl}/dashboard/${target}`);
      expect(answer?.status(), target).toBe(404);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Not found');
    }
    await checkPage(page, 'not-found');
    await context.close();
  });

  it('When a live key logs in, then the banner says LIVE MODE and none of the test data shows', async () => {
    const merchant = await newMerchant('Live Org');
    const { session, eventId } = await failedDelivery(merchant.test, `/hooks/${uniqueId('live')}`);
    const { context, page } = await loggedIn(merchant.live);
    await expect(page.getByRole('note').textContent()).resolves.toContain('LIVE MODE');
    await page.goto(`${stack.gatewayUrl}/dashboard/orders`);
    expect(await page.locator('table tbody').textContent()).toContain('No orders match.');
    await page.goto(`${stack.gatewayUrl}/dashboard/events`);
    expect(await page.getByRole('table', { name: 'Events, newest first' }).textContent()).toContain('No events yet.');
    expect(await page.getByRole('region', { name: 'Failed deliveries' }).textContent()).toContain(
      'No failed deliveries.',
    );
    expect((await page.goto(`${stack.gatewayUrl}/dashboard/orders/${session.order.id}`))?.status()).toBe(404);
    expect((await page.goto(`${stack.gatewayUrl}/dashboard/events/${eventId}`))?.status()).toBe(404);
    await page.goto(`${stack.gatewayUrl}/dashboard/sessions`);
    await checkPage(page, 'live-sessions');
    await context.close();
  });

  it('When `npm run cli -- dashboard` runs with a test key, then it prints a link that logs the browser in', async () => {
    const merchant = await newMerchant('CLI Org');
    // Run from the repository root, as `npm run cli` does; explicit flags instead of the running stack's .stack.json.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/cli.ts', 'dashboard', '--key', merchant.testKey, '--base-url', stack.gatewayUrl],
      {
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      },
    );
    const url = stdout.trim();
    expect(url).toMatch(new RegExp(`^${stack.gatewayUrl}/dashboard/login/[A-Za-z0-9_-]{43}$`));
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await logIn(page);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Overview');
    await context.close();
  });

  it("When another site makes a victim's browser post an attacker's login link (login CSRF), then no session starts", async () => {
    const attacker = await newMerchant('Attacker Org');
    const { url } = await attacker.test.dashboard.loginLinks.create();
    // The attacker opens its own link's page for the form's proof; the victim's browser has even opened the
    // page too (the nonce cookie is in its jar), then lands on the attacker's page, which submits the form.
    const attackerPage = await fetch(url);
    const proof = /name="proof" value="([^"]+)"/.exec(await attackerPage.text())?.[1] ?? '';
    expect(proof).not.toBe('');
    const context = await browser.newContext();
    // The attacker's site, on an origin of its own (served by the browser's request routing).
    await context.route('http://attacker.example/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><title>Prize</title><form method="post" action="${url}"><input type="hidden" name="proof" value="${proof}"><button>Win a prize</button></form>`,
      }),
    );
    const page = await context.newPage();
    await page.goto(url);
    await page.goto('http://attacker.example/');
    await page.getByRole('button', { name: 'Win a prize' }).click();
    await page.waitForURL(url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Please try again');
    expect((await context.cookies()).map((c) => c.name)).not.toContain('checkout_dashboard');
    expect((await page.goto(`${stack.gatewayUrl}/dashboard`))?.status()).toBe(401);
    // The link was not used: its owner can still log in with it.
    const owner = await browser.newContext();
    const ownerPage = await owner.newPage();
    await ownerPage.goto(url);
    await logIn(ownerPage);
    await owner.close();
    await context.close();
  });
});

describe('webhook endpoints on the dashboard (D50, D51)', () => {
  it('When a merchant adds an endpoint, sees its secret once, watches it fail, disables it, enables it again and recovers what it missed, then every step is a confirmed, accessible page and the endpoint gets its events', async () => {
    const merchant = await newMerchant('Endpoints Dashboard Org');
    const path = `/hooks/${uniqueId('endpoint')}`;
    receiver.answer(path, ANSWER.error);
    const { context, page } = await loggedIn(merchant.test);

    // Add: the form, then the secret, once.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhook endpoints' }).click();
    await page.waitForURL(/\/dashboard\/webhook_endpoints$/);
    expect(await page.locator('table tbody').textContent()).toContain('No webhook endpoints yet.');
    await checkPage(page, 'endpoints-empty');
    await page.getByRole('link', { name: 'Add an endpoint…' }).click();
    await page.getByLabel('URL').fill(receiver.url(path));
    await page.getByLabel('Description (optional)').fill('Fulfilment');
    // The session's completion only: every order event of D49 would fail at this endpoint too, and the walk below
    // follows one session's event through failure, the filters and recovery.
    await page.getByLabel('All event types, those added later too').uncheck();
    await page.getByLabel('checkout.session.completed', { exact: true }).check();
    await checkPage(page, 'endpoint-new');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Webhook endpoint added');
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await checkPage(page, 'endpoint-secret');
    await page.getByRole('link', { name: 'Continue to the endpoint' }).click();
    await page.waitForURL(/\/dashboard\/webhook_endpoints\/we_test_\w+$/);
    const endpointUrl = page.url();
    const endpointId = endpointUrl.split('/').pop() as string;
    expect(await page.content()).not.toContain(secret);

    // A paid session: the delivery to the endpoint fails (2 attempts); its attempts are on the endpoint's page.
    const { eventId } = await failedDelivery(merchant.test, `/callback/${uniqueId('cb')}`);
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('tr[data-delivery-status="failed"]').count()) === 1;
      },
      { ...DEADLINE, description: "the endpoint's failed delivery on its page" },
    );
    expect(await page.locator('tr[data-delivery-status="failed"]').textContent()).toContain('HTTP 500');
    await checkPage(page, 'endpoint');

    // The events page finds it by the endpoint and the state of its delivery (D51).
    await page.goto(`${stack.gatewayUrl}/dashboard/events`);
    await page.getByLabel('A delivery that is').selectOption('failed');
    await page.getByLabel('Webhook endpoint id').fill(endpointId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/deliveryStatus=failed/);
    expect(await page.getByRole('table', { name: 'Events, newest first' }).textContent()).toContain(eventId);
    await checkPage(page, 'events-filtered');
    await page.getByLabel('A delivery that is').selectOption('succeeded');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/deliveryStatus=succeeded/);
    expect(await page.getByRole('table', { name: 'Events, newest first' }).textContent()).toContain('No events match.');
    await page.getByLabel('Webhook endpoint id').fill('we_nope');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/endpointId=we_nope/);
    expect(await page.locator('.notice.error').textContent()).toContain('Those filters are not valid');

    // Disable through its confirm page; a session paid meanwhile does not reach it.
    await page.goto(endpointUrl);
    await page.getByRole('link', { name: 'Disable it…' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Disable this endpoint?');
    await checkPage(page, 'endpoint-disable-confirm');
    await page.getByRole('button', { name: 'Yes, disable it' }).click();
    await page.waitForURL(/\?m=disabled$/);
    expect(await page.locator('dl.facts').textContent()).toContain('disabled');
    const missed = await failedDelivery(merchant.test, `/callback/${uniqueId('cb2')}`);
    receiver.answer(path, ANSWER.ok);

    // Enable, then recover since before the first event: the failed delivery and the missed event, once each.
    await page.getByRole('link', { name: 'Enable it…' }).click();
    await page.getByRole('button', { name: 'Yes, enable it' }).click();
    await page.waitForURL(/\?m=enabled$/);
    await page.getByLabel('Since (UTC)').fill(new Date(Date.now() - 3_600_000).toISOString().slice(0, 19));
    await page.getByRole('button', { name: 'Review recovery' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Recover what this endpoint missed?',
    );
    await checkPage(page, 'endpoint-recover-confirm');
    await page.getByRole('button', { name: 'Yes, send them' }).click();
    await page.waitForURL(/\?recovering=2$/);
    await eventually(
      () =>
        [eventId, missed.eventId].every((id) =>
          receiver
            .deliveries(path)
            .some((r) => r.headers['x-service-event-id'] === id && r.headers['webhook-signature']),
        ),
      { ...DEADLINE, description: 'both events recovered to the endpoint' },
    );

    // Rotate: confirmed, the new secret shown once.
    await page.getByRole('link', { name: 'Rotate its signing secret…' }).click();
    await page.getByRole('button', { name: 'Yes, rotate it' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('New signing secret');
    const rotated = await page.getByLabel('Signing secret').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    // Another organization's endpoint is "not found", as any foreign id (D4).
    const other = await newMerchant('Other Endpoints Org');
    const { context: otherContext, page: otherPage } = await loggedIn(other.test);
    for (const target of [endpointId, `${endpointId}/disable`, 'we_test_unknown', 'not-an-id']) {
      const answer = await otherPage.goto(`${stack.gatewayUrl}/dashboard/webhook_endpoints/${target}`);
      expect(answer?.status(), target).toBe(404);
    }
    await otherContext.close();
    await context.close();
  });
});

describe("the hosted page's brand on the dashboard's Settings page", () => {
  it("When a merchant sets its brand and default locale on the Settings page, then a refused value is shown again with why, the saved ones are what the API reads, and a new session's page shows them", async () => {
    const merchant = await newMerchant('Settings Dashboard Org');
    const { context, page } = await loggedIn(merchant.test);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/\/dashboard\/settings$/);
    expect(await page.getByLabel("Display name (else your organization's name)").inputValue()).toBe('');
    await checkPage(page, 'settings');

    // A logo that is not https is refused, and what was typed is kept.
    await page.getByLabel("Display name (else your organization's name)").fill('Café Brand');
    await page.getByLabel(/^Button colour/).fill('#FEFEFE');
    await page.getByLabel('Logo URL (https only)').fill('http://logo.example/logo.png');
    await page.getByLabel('Language of new checkout sessions that name none').selectOption('fr');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await page.getByRole('status').textContent()).toMatch(/Not saved: .*logoUrl/);
    expect(await page.getByLabel('Logo URL (https only)').inputValue()).toBe('http://logo.example/logo.png');
    await checkPage(page, 'settings-refused');
    expect((await merchant.test.checkoutSettings.retrieve()).displayName).toBeNull();

    await page.getByLabel('Logo URL (https only)').fill('https://logo.example/logo.png');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/\/dashboard\/settings\?m=saved$/);
    expect(await page.getByRole('status').textContent()).toContain('Saved.');
    expect(await merchant.test.checkoutSettings.retrieve()).toEqual({
      displayName: 'Café Brand',
      brandColor: '#fefefe',
      logoUrl: 'https://logo.example/logo.png',
      defaultLocale: 'fr',
    });
    // Each mode has its own settings.
    expect((await merchant.live.checkoutSettings.retrieve()).displayName).toBeNull();

    // A new session's page: the display name, the logo fetched without a referrer, black text on the light button.
    const session = await merchant.test.checkoutSessions.create({
      items: [{ name: 'Tea', quantity: 1, unitPrice: 300 }],
    });
    const hosted = await context.newPage();
    await hosted.route('https://logo.example/**', (route) =>
      route.fulfill({
        contentType: 'image/svg+xml',
        body: '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>',
      }),
    );
    await hosted.goto(session.url);
    expect(await hosted.getByRole('heading', { level: 1 }).textContent()).toBe('Café Brand');
    const logo = hosted.getByRole('img', { name: 'Café Brand logo' });
    expect(await logo.getAttribute('referrerpolicy')).toBe('no-referrer');
    const colours = await hosted.evaluate<string[]>(
      "(() => { const s = getComputedStyle(document.querySelector('button')); return [s.backgroundColor, s.color]; })()",
    );
    expect(colours).toEqual(['rgb(254, 254, 254)', 'rgb(0, 0, 0)']);

    // Emptied fields clear the settings: the organization's name again.
    await page.getByLabel("Display name (else your organization's name)").fill('');
    await page.getByLabel(/^Button colour/).fill('');
    await page.getByLabel('Logo URL (https only)').fill('');
    await page.getByLabel('Language of new checkout sessions that name none').selectOption('auto');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/\/dashboard\/settings\?m=saved$/);
    expect(await merchant.test.checkoutSettings.retrieve()).toEqual({
      displayName: null,
      brandColor: null,
      logoUrl: null,
      defaultLocale: null,
    });
    await context.close();
  });
});

describe("the merchant's books on the dashboard's Balance page (D52)", () => {
  it('When a merchant opens Balance, filters its lines and presses Download CSV, then the totals match the API, the report runs once for the form sent twice, and its file downloads once it succeeded', async () => {
    const merchant = await newMerchant('Balance Dashboard Org');
    const session = await merchant.test.checkoutSessions.create({
      items: [{ name: 'Latte', quantity: 2, unitPrice: 450 }],
    });
    await merchant.test.testHelpers.checkoutSessions.pay(session.id);
    const refund = await merchant.test.refunds.create(session.order.id, { amount: 150 });
    // The lines are built off the payment path: the balance counts both once orders' consumer has run.
    const balance = await eventually(
      async () => {
        const read = await merchant.test.balance.retrieve();
        return read.count === 2 ? read : undefined;
      },
      { ...DEADLINE, description: 'the balance to count the payment and the refund' },
    );
    expect(balance).toMatchObject({ payments: 900, refunds: 150, net: 750 });

    const { context, page } = await loggedIn(merchant.test);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Balance' }).click();
    await page.waitForURL(/\/dashboard\/balance$/);
    expect(await page.locator('[data-total="net"]').textContent()).toBe('$7.50');
    expect(await page.locator('[data-total="count"]').textContent()).toBe('2');
    expect(await page.getByRole('table', { name: 'Money per day (UTC), newest first' }).textContent()).toContain(
      '$9.00$1.50$7.50',
    );
    const lines = page.getByRole('table', { name: 'Balance transactions, newest first' });
    expect(await lines.locator('tbody tr').count()).toBe(2);
    await checkPage(page, 'balance');

    await page.getByLabel('Type').selectOption('refund');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/dashboard\/balance\?type=refund&/);
    expect(await lines.locator('tbody tr').count()).toBe(1);
    expect(await lines.textContent()).toContain(refund.id);
    await page.goto(`${stack.gatewayUrl}/dashboard/balance?createdAfter=yesterday`);
    expect(await page.getByRole('status').first().textContent()).toContain('Those filters are not valid');

    await page.goto(`${stack.gatewayUrl}/dashboard/balance`);
    const form = page.locator('form[action="/dashboard/balance/report"]');
    const fields = {
      csrf: (await form.locator('input[name=csrf]').getAttribute('value')) ?? '',
      key: (await form.locator('input[name=key]').getAttribute('value')) ?? '',
      reportAfter: await form.getByLabel('Created from (UTC)').inputValue(),
      reportBefore: await form.getByLabel('Created before (UTC)').inputValue(),
    };
    await page.getByRole('button', { name: 'Download CSV' }).click();
    await page.waitForURL(/\/dashboard\/balance\?report=rpt_test_\w+$/);
    const reportId = new URL(page.url()).searchParams.get('report') as string;
    // The same form again (a double press): the same report.
    const again = await page.request.post(`${stack.gatewayUrl}/dashboard/balance/report`, {
      form: fields,
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers().location).toBe(`/dashboard/balance?report=${reportId}`);
    const forged = await page.request.post(`${stack.gatewayUrl}/dashboard/balance/report`, {
      form: { ...fields, csrf: 'forged' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);

    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('[data-report-status="succeeded"]').count()) === 1;
      },
      { ...DEADLINE, description: 'the report to succeed on the page' },
    );
    await checkPage(page, 'balance-report');
    const href = (await page.getByRole('link', { name: 'Download the CSV file' }).getAttribute('href')) ?? '';
    const file = await page.request.get(`${stack.gatewayUrl}${href}`);
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toBe('text/csv; charset=utf-8');
    expect(await file.text()).toBe(await merchant.test.reports.downloadFile(reportId));

    // Another organization's report is "not found" on its dashboard, as through the API (D4).
    const other = await newMerchant('Balance Other Org');
    const stranger = await loggedIn(other.test);
    const foreign = await stranger.page.request.get(`${stack.gatewayUrl}${href}`);
    expect(foreign.status()).toBe(404);
    await stranger.context.close();
    await context.close();
  });
});
