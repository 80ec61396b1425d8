import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SESSION_LOCALES, type PageLocale } from '@checkout/contracts';
import { newTenant, startStack, type Stack, type Tenant } from './harness';
import { launchChromium } from './browser';

// The hosted page in each of its locales (D53), through Chromium: every state of it passes axe-core with no
// violation at all, the document says its language (and Arabic its direction, laid out right to left by the
// browser), and an `auto` session speaks the browser's language. With HOSTED_PAGE_SCREENSHOTS_DIR set, each
// locale's open page is saved at phone and desktop width (docs/hosted-page-screenshots/, services/sessions/README.md).
const SHOTS = process.env.HOSTED_PAGE_SCREENSHOTS_DIR;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 900 };

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  stack = await startStack('locales');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function open(sessionId: string, options: { locale?: string; viewport?: typeof PHONE } = {}) {
  const page = await browser.newPage({ viewport: options.viewport ?? PHONE, locale: options.locale ?? 'en-US' });
  const res = await page.goto(`${stack.sessionsUrl}/checkout/${sessionId}`);
  expect(res?.status()).toBe(200);
  return { page, headers: res?.headers() ?? {} };
}

/** axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern). */
async function violations(page: Page): Promise<string[]> {
  const found = await page.evaluate<{ id: string; nodes: string[] }[]>(
    `${AXE_SOURCE};\naxe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ` +
      `({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`,
  );
  return found.map((v) => `${v.id}: ${v.nodes.join(', ')}`);
}

/** What the document says of its language and direction. */
async function expectLanguage(page: Page, locale: PageLocale): Promise<void> {
  expect(await page.getAttribute('html', 'lang')).toBe(locale);
  expect(await page.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
}

function createSession(tenant: Tenant, overrides: Record<string, unknown>) {
  return stack.createSession(tenant, overrides);
}

describe('the hosted page in every locale (D53)', () => {
  it.each(SESSION_LOCALES)(
    '%s: open, with inputs, completed and expired pages pass axe with 0 violations',
    async (locale) => {
      const tenant = newTenant();
      const plain = await createSession(tenant, { locale });
      const withInputs = await createSession(tenant, {
        locale,
        requireFromCustomer: { phone: true, shippingAddress: true },
      });
      expect(plain.locale).toBe(locale);
      const found: Record<string, string[]> = {};

      const { page, headers } = await open(plain.id);
      await expectLanguage(page, locale);
      expect(headers['content-language']).toBe(locale);
      expect(headers.vary ?? '').not.toMatch(/accept-language/i);
      found.open = await violations(page);
      if (SHOTS) {
        await page.screenshot({ path: `${SHOTS}/${locale}-375.png`, fullPage: true });
        await page.setViewportSize(DESKTOP);
        await page.screenshot({ path: `${SHOTS}/${locale}-1280.png`, fullPage: true });
      }
      await stack.api('POST', `/internal/test-helpers/sessions/${plain.id}/pay`, tenant, { method: 'card' });
      await page.reload();
      expect(await page.getByTestId('status').getAttribute('data-status')).toBe('completed');
      found.completed = await violations(page);
      await page.close();

      const inputs = await open(withInputs.id);
      expect(await inputs.page.locator('input[type=tel]').count()).toBe(1);
      found.inputs = await violations(inputs.page);
      await stack.api('POST', `/internal/test-helpers/sessions/${withInputs.id}/expire`, tenant);
      await inputs.page.reload();
      expect(await inputs.page.getByTestId('status').getAttribute('data-status')).toBe('expired');
      await expectLanguage(inputs.page, locale);
      found.expired = await violations(inputs.page);
      await inputs.page.close();

      expect(found).toEqual({ open: [], completed: [], inputs: [], expired: [] });
    },
  );

  it('When the session says auto, then the page is in the browser language, and the answer varies by it', async () => {
    const tenant = newTenant();
    const session = await createSession(tenant, {});
    expect(session.locale).toBe('auto');
    const { page, headers } = await open(session.id, { locale: 'pt-PT' });
    await expectLanguage(page, 'pt-BR');
    expect(headers.vary).toMatch(/accept-language/i);
    expect(await page.getByTestId('total').textContent()).toMatch(/^US\$\s12,23$/);
    await page.close();
    const japanese = await open(session.id, { locale: 'ja-JP' });
    await expectLanguage(japanese.page, 'ja');
    await japanese.page.close();
    const unknown = await open(session.id, { locale: 'sv-SE' });
    await expectLanguage(unknown.page, 'en');
    expect(await unknown.page.getByRole('button', { name: 'Pay $12.23' }).isVisible()).toBe(true);
    await unknown.page.close();
  });

  it('When a session names a locale, then the browser language does not change it', async () => {
    const session = await createSession(newTenant(), { locale: 'de' });
    const { page, headers } = await open(session.id, { locale: 'fr-FR' });
    await expectLanguage(page, 'de');
    expect(headers.vary ?? '').not.toMatch(/accept-language/i);
    expect(await page.getByRole('button', { name: /12,23\s\$ bezahlen/ }).isVisible()).toBe(true);
    await page.close();
  });

  it('When in Arabic, then the browser lays the page out right to left, not mirrored text in a left-to-right box', async () => {
    const session = await createSession(newTenant(), { locale: 'ar' });
    const { page } = await open(session.id, { viewport: DESKTOP });
    expect(await page.evaluate<string>('getComputedStyle(document.body).direction')).toBe('rtl');
    const box = async (selector: string) => {
      const b = await page.locator(selector).first().boundingBox();
      if (!b) throw new Error(`${selector} has no box`);
      return b;
    };
    // The summary's total: its amount at the start of a right-to-left row, on the left of its label.
    const label = await box('tr.total th');
    const amount = await box('[data-testid="total"]');
    expect(amount.x + amount.width).toBeLessThanOrEqual(label.x + 1);
    // The pay section: the amount in its heading starts at the right; the button is to the left of where it ends.
    const heading = await page.evaluate<{ textLeft: number; textRight: number; cardLeft: number; cardRight: number }>(
      `(() => {
        const h = document.querySelector('#pay-h'), range = document.createRange();
        range.selectNodeContents(h);
        const text = range.getBoundingClientRect(), card = h.getBoundingClientRect();
        return { textLeft: text.left, textRight: text.right, cardLeft: card.left, cardRight: card.right };
      })()`,
    );
    expect(heading.cardRight - heading.textRight).toBeLessThan(2);
    expect(heading.textLeft - heading.cardLeft).toBeGreaterThan(100);
    const button = await box('button[type=submit]');
    expect(button.x).toBeLessThan(heading.textLeft);
    // A radio sits at the start (right) of its label's text, as Chromium's own RTL flex layout puts it.
    const radio = await box('input[name=method]');
    const radioLabel = await box('.methods label');
    expect(radio.x + radio.width).toBeGreaterThan(radioLabel.x + radioLabel.width - radio.width - 8);
    await page.close();
  });
});
