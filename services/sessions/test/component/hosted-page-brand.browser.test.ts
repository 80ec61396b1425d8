import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { newTenant, startStack, type Stack } from './harness';
import { launchChromium } from './browser';

// The merchant's brand on the hosted page through a real browser (Chromium via playwright-core, as
// hosted-page.browser.test.ts): whatever colour the merchant picks, the button's text keeps WCAG AA contrast as the
// browser computes it; the logo comes from https only, without a referrer.

const LOGO = 'https://logo.example/brand.svg';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack('brand');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** WCAG's contrast of two computed `rgb(r, g, b)` colours, as a checker in the browser would measure it. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, bl] = (rgb.match(/\d+/g) ?? []).slice(0, 3).map((c) => {
      const s = Number(c) / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

async function openBranded(brand: { brandColor?: string; displayName?: string; logoUrl?: string }) {
  const tenant = newTenant();
  tenant.settings = { ...tenant.settings!, ...brand };
  const session = await stack.createSession(tenant, {});
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const logoRequests: Record<string, string>[] = [];
  await page.route('https://logo.example/**', async (route) => {
    logoRequests.push(route.request().headers());
    await route.fulfill({
      contentType: 'image/svg+xml',
      body: '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>',
    });
  });
  const response = await page.goto(`${stack.sessionsUrl}/checkout/${session.id}`);
  const button = await page.evaluate<[string, string]>(
    "(() => { const s = getComputedStyle(document.querySelector('button[type=submit]')); return [s.backgroundColor, s.color]; })()",
  );
  return { page, response, button, logoRequests };
}

describe("the merchant's brand on the hosted page", () => {
  it.each([
    ['very light', '#fefefe', 'rgb(0, 0, 0)'],
    ['very dark', '#0a0a23', 'rgb(255, 255, 255)'],
    ['mid grey', '#777777', 'rgb(0, 0, 0)'],
    ['saturated yellow', '#ffe600', 'rgb(0, 0, 0)'],
  ])(
    'When the brand colour is %s (%s), then the pay button wears it with text of at least 4.5:1',
    async (_, colour, text) => {
      const { page, button } = await openBranded({ brandColor: colour });
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
      expect(button).toEqual([`rgb(${r}, ${g}, ${b})`, text]);
      expect(contrast(button[0], button[1])).toBeGreaterThanOrEqual(4.5);
      // axe-core's own contrast rule agrees (run through the DevTools protocol, which the page's CSP does not govern).
      const failing = await page.evaluate<string[]>(
        `${AXE_SOURCE};\naxe.run(document, { runOnly: ['color-contrast'] }).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => n.target.join(' '))))`,
      );
      expect(failing).toEqual([]);
      await page.close();
    },
  );

  it('When the merchant has a display name and a logo, then both show, the logo loaded over https without a referrer', async () => {
    const { page, response, logoRequests } = await openBranded({ displayName: 'Café Brand', logoUrl: LOGO });
    expect(response?.headers()['content-security-policy']).toContain('img-src https:;');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Café Brand');
    expect(await page.title()).toContain('Café Brand');
    const logo = page.getByRole('img', { name: 'Café Brand logo' });
    await expect.poll(() => logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(40);
    expect(logoRequests).toHaveLength(1);
    expect(logoRequests[0]?.referer).toBeUndefined();
    await page.close();
  });

  it('When the merchant has no brand, then the page is as before: its name and the blue button with white text', async () => {
    const { page, button } = await openBranded({});
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Acme Coffee');
    expect(await page.locator('img').count()).toBe(0);
    expect(button).toEqual(['rgb(29, 78, 216)', 'rgb(255, 255, 255)']);
    await page.close();
  });
});
