import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { AdminClient, eventually } from '@checkout/testing';
import { createLogger } from '@checkout/logger';
import { CommandCounter } from '@checkout/mongo/testing';
import { buildApp, type GatewayApp } from '../../src/app';
import { parseConfig } from '../../src/config';
import { gatewayOnlyEnvironment } from './harness';

// D47's login links and dashboard sessions on the gateway alone (the pages' data comes from the other services:
// test-e2e/src/dashboard.e2e.test.ts). The clock is injected, so a link expires without waiting; two gateway
// replicas share one database, as in production.

const MINUTE = 60_000;
let now = new Date('2026-11-24T10:00:00.000Z');
const clock = () => now;
const apps: GatewayApp[] = [];
let gateway: string;
let replica: string;
/** A replica whose PUBLIC_BASE_URL is https (behind a TLS-terminating proxy): its cookies are Secure. */
let httpsReplica: string;
/** A replica with a small per-key limit (4 an hour) and its database commands counted. */
let limitedReplica: string;
const limitedCommands = new CommandCounter();
let admin: AdminClient;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

async function call(
  method: 'GET' | 'POST',
  url: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const response = await request(url, {
    method,
    headers: options.headers ?? {},
    ...(options.body !== undefined && { body: options.body }),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

beforeAll(async () => {
  const env = gatewayOnlyEnvironment('gwdash');
  for (let i = 0; i < 4; i++) {
    const app = buildApp(
      parseConfig({
        ...env.gateway,
        PORT: '0',
        ADMIN_PORT: '0',
        ...(i === 2 && { PUBLIC_BASE_URL: 'https://pay.example' }),
        ...(i === 3 && {
          RATE_LIMIT_PER_WINDOW: '4',
          RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
          RATE_LIMIT_WINDOW_MS: '3600000',
        }),
      }),
      createLogger('gateway', { level: 'silent' }),
      { clock },
    );
    const { url, adminUrl } = await (i === 3 ? limitedCommands.watch(() => app.start()) : app.start());
    apps.push(app);
    if (i === 0) {
      gateway = url;
      admin = new AdminClient(adminUrl, env.adminToken);
    } else if (i === 1) replica = url;
    else if (i === 2) httpsReplica = url;
    else limitedReplica = url;
  }
});

afterAll(async () => {
  for (const app of apps) await app.stop().catch(() => {});
});

async function merchant() {
  const name = `Dash ${randomBytes(3).toString('hex')}`;
  const organizationId = await admin.createOrganization(name);
  const key = await admin.createKey(organizationId, 'test');
  return { name, organizationId, key };
}

async function loginLink(secret: string, base = gateway): Promise<{ path: string; expiresAt: string }> {
  const answer = await call('POST', `${base}/v0/dashboard/login_links`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(answer.status).toBe(201);
  const body = JSON.parse(answer.text) as { url: string; expiresAt: string };
  return { path: new URL(body.url).pathname, expiresAt: body.expiresAt };
}

function cookieOf(answer: Answer, name = 'checkout_dashboard'): string {
  const line = setCookies(answer).find((c) => c.startsWith(`${name}=`));
  expect(line, `${name} cookie`).toBeDefined();
  return (line ?? '').split(';')[0] ?? '';
}

function setCookies(answer: Answer): string[] {
  const setCookie = answer.headers['set-cookie'];
  return setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
}

/** What a browser does with a login link: opens its page, then presses its button with the page's cookie and form. */
async function openAndPress(
  path: string,
  options: { base?: string; pressOn?: string; headers?: Record<string, string> } = {},
): Promise<{ page: Answer; pressed: Answer }> {
  const page = await call('GET', `${options.base ?? gateway}${path}`);
  expect(page.status).toBe(200);
  const pressed = await press(path, page, options);
  return { page, pressed };
}

function press(
  path: string,
  page: Answer,
  options: { base?: string; pressOn?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const proof = /name="proof" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  expect(proof).not.toBe('');
  return call('POST', `${options.pressOn ?? options.base ?? gateway}${path}`, {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieOf(page, 'checkout_dashboard_login'),
      'sec-fetch-site': 'same-origin',
      ...options.headers,
    },
    body: `proof=${encodeURIComponent(proof)}`,
  });
}

async function login(secret: string): Promise<string> {
  const { path } = await loginLink(secret);
  const { pressed } = await openAndPress(path);
  expect(pressed.status).toBe(303);
  return cookieOf(pressed);
}

describe('POST /v0/dashboard/login_links (D47)', () => {
  it('When a key asks for a link, then it gets a URL on the public base and an expiry 5 minutes ahead', async () => {
    const { key } = await merchant();
    const answer = await call('POST', `${gateway}/v0/dashboard/login_links`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(answer.status).toBe(201);
    const body = JSON.parse(answer.text) as { url: string; expiresAt: string };
    expect(body.url).toMatch(/\/dashboard\/login\/[A-Za-z0-9_-]{43}$/);
    expect(body.expiresAt).toBe(new Date(now.getTime() + 5 * MINUTE).toISOString());
  });

  it('When no key or a wrong key is sent, then 401 as for every /v0 route (D5)', async () => {
    expect((await call('POST', `${gateway}/v0/dashboard/login_links`)).status).toBe(401);
    expect(
      (
        await call('POST', `${gateway}/v0/dashboard/login_links`, {
          headers: { authorization: `Bearer sk_test_${'x'.repeat(44)}` },
        })
      ).status,
    ).toBe(401);
  });
});

describe('GET and HEAD /dashboard/login/:token (D47)', () => {
  it('When a link is opened, then its page names the organization and mode and has a button; no session cookie is set and the link stays usable', async () => {
    const { name, key } = await merchant();
    const { path } = await loginLink(key.secret);
    const page = await call('GET', `${gateway}${path}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Log in to the dashboard');
    expect(page.text).toContain('TEST MODE');
    expect(page.text).toContain(`<strong>${name}</strong>`);
    expect(page.text).toContain(`<form method="post" action="${path}">`);
    expect(page.text).not.toContain('http-equiv="refresh"');
    // Only the nonce that binds the button to this browser: no session, 5 minutes, sent only to the login route.
    expect(setCookies(page)).toHaveLength(1);
    expect(setCookies(page)[0]).toMatch(
      /^checkout_dashboard_login=[A-Za-z0-9_-]{43}; Path=\/dashboard\/login; Max-Age=300; HttpOnly; SameSite=Strict$/,
    );
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    // Opened again (a scanner, then the merchant), it still works.
    expect((await call('GET', `${replica}${path}`)).status).toBe(200);
    expect((await openAndPress(path)).pressed.status).toBe(303);
  });

  it('When a link is fetched with HEAD, then nothing is set and nothing is used', async () => {
    const { key } = await merchant();
    const { path } = await loginLink(key.secret);
    const head = await request(`${gateway}${path}`, { method: 'HEAD' });
    await head.body.dump();
    expect(head.statusCode).toBe(200);
    expect(head.headers['set-cookie']).toBeUndefined();
    expect((await openAndPress(path)).pressed.status).toBe(303);
  });

  it('When the button is pressed, then the session cookie is HttpOnly, SameSite=Strict, Path=/dashboard, 12 hours, not Secure on http, the nonce is cleared and the browser goes on to /dashboard', async () => {
    const { key } = await merchant();
    const { path } = await loginLink(key.secret);
    const { pressed } = await openAndPress(path);
    expect(pressed.status).toBe(303);
    expect(pressed.headers.location).toBe('/dashboard');
    const cookies = setCookies(pressed);
    expect(cookies.find((c) => c.startsWith('checkout_dashboard='))).toMatch(
      /^checkout_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=43200; HttpOnly; SameSite=Strict$/,
    );
    expect(cookies.find((c) => c.startsWith('checkout_dashboard_login='))).toMatch(
      /^checkout_dashboard_login=; Path=\/dashboard\/login; Max-Age=0;/,
    );
    const overview = await call('GET', `${gateway}/dashboard/recover`, { headers: { cookie: cookieOf(pressed) } });
    expect(overview.status).toBe(200);
  });

  it('When the public base URL is https, then the link is on it and both cookies are Secure', async () => {
    const { key } = await merchant();
    const answer = await call('POST', `${httpsReplica}/v0/dashboard/login_links`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    const { url } = JSON.parse(answer.text) as { url: string };
    expect(url).toMatch(/^https:\/\/pay\.example\/dashboard\/login\//);
    const { page, pressed } = await openAndPress(new URL(url).pathname, { base: httpsReplica });
    expect(setCookies(page)[0]).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    expect(setCookies(pressed).find((c) => c.startsWith('checkout_dashboard='))).toMatch(
      /; HttpOnly; SameSite=Strict; Secure$/,
    );
  });
});

describe('POST /dashboard/login/:token (D47: the button)', () => {
  it("When another site's form posts to a link (login CSRF: no nonce cookie, another browser's, or Sec-Fetch-Site not same-origin), then 403 and the link is not used", async () => {
    const { key } = await merchant();
    const { path } = await loginLink(key.secret);
    const page = await call('GET', `${gateway}${path}`);
    const proof = /name="proof" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = `proof=${encodeURIComponent(proof)}`;
    // The attacker's page has the form (it made the link), but the victim's browser sends no Strict cookie with it.
    const noCookie = await call('POST', `${gateway}${path}`, { headers: form, body });
    expect(noCookie.status).toBe(403);
    expect(noCookie.text).toContain('Please try again');
    expect(setCookies(noCookie)).toEqual([]);
    const otherPage = await call('GET', `${gateway}${path}`);
    const otherBrowser = await call('POST', `${gateway}${path}`, {
      headers: { ...form, cookie: cookieOf(otherPage, 'checkout_dashboard_login') },
      body,
    });
    expect(otherBrowser.status).toBe(403);
    const crossSite = await press(path, page, { headers: { 'sec-fetch-site': 'same-site' } });
    expect(crossSite.status).toBe(403);
    const noProof = await call('POST', `${gateway}${path}`, {
      headers: { ...form, cookie: cookieOf(page, 'checkout_dashboard_login') },
      body: '',
    });
    expect(noProof.status).toBe(403);
    // None of them used the link.
    expect((await press(path, page)).status).toBe(303);
  });

  it('When a link is used a second time, even on another replica, then it is refused with a clear page', async () => {
    const { key } = await merchant();
    const { path } = await loginLink(key.secret);
    const { page, pressed } = await openAndPress(path);
    expect(pressed.status).toBe(303);
    const again = await press(path, page, { pressOn: replica });
    expect(again.status).toBe(410);
    expect(again.text).toContain('This login link cannot be used');
    expect(again.headers['set-cookie']).toBeUndefined();
    const reopened = await call('GET', `${replica}${path}`);
    expect(reopened.status).toBe(410);
    expect(reopened.headers['set-cookie']).toBeUndefined();
  });

  it('When ten presses of one link race, then exactly one gets a session', async () => {
    const { key } = await merchant();
    const { path } = await loginLink(key.secret);
    const pages = await Promise.all(Array.from({ length: 10 }, () => call('GET', `${gateway}${path}`)));
    const answers = await Promise.all(
      pages.map((page, i) => press(path, page, { pressOn: i % 2 ? replica : gateway })),
    );
    expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 410)).toHaveLength(9);
  });

  it('When a link is opened or pressed after its 5 minutes, then it is refused', async () => {
    const { key } = await merchant();
    const { path } = await loginLink(key.secret);
    const page = await call('GET', `${gateway}${path}`);
    now = new Date(now.getTime() + 5 * MINUTE + 1);
    const late = await call('GET', `${gateway}${path}`);
    expect(late.status).toBe(410);
    expect(late.text).toContain('has expired');
    expect((await press(path, page)).status).toBe(410);
  });

  it('When an unknown or malformed token is opened or pressed, then the same refusal', async () => {
    for (const token of ['x'.repeat(43), 'short', '%00']) {
      const answer = await call('GET', `${gateway}/dashboard/login/${token}`);
      expect(answer.status).toBe(410);
      expect(answer.text).toContain('This login link cannot be used');
      const pressed = await call('POST', `${gateway}/dashboard/login/${token}`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'proof=x',
      });
      expect([403, 410]).toContain(pressed.status);
    }
  });
});

describe('dashboard sessions (D47)', () => {
  it('When a page is asked for without a session, then a "please log in" page (401)', async () => {
    const answer = await call('GET', `${gateway}/dashboard/orders`);
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('Please log in');
  });

  it('When the key behind a session is revoked, then the session ends on every replica', async () => {
    const { organizationId, key } = await merchant();
    const cookie = await login(key.secret);
    // A page that needs no other service: the confirm step of a recovery.
    const before = await call('GET', `${replica}/dashboard/recover?since=2026-11-24T09:00`, { headers: { cookie } });
    expect(before.status).toBe(200);
    expect(before.text).toContain('Recover failed deliveries?');
    await admin.call('POST', `/organizations/${organizationId}/keys/${key.id}/revoke`);
    expect(
      (await call('GET', `${gateway}/dashboard/recover?since=2026-11-24T09:00`, { headers: { cookie } })).status,
    ).toBe(401);
    // The other replica's key cache remembers the key for at most AUTH_CACHE_MS (2 s by default).
    const other = await eventually(
      async () => {
        const answer = await call('GET', `${replica}/dashboard/recover?since=2026-11-24T09:00`, {
          headers: { cookie },
        });
        return answer.status === 401 ? answer : undefined;
      },
      { deadlineMs: 10_000, description: 'the other replica to end the session' },
    );
    expect(other.text).toContain('Please log in');
  });

  it("When a form is posted without the CSRF token, or with another session's, then 403 and nothing is done", async () => {
    const { key } = await merchant();
    const cookie = await login(key.secret);
    const otherCookie = await login(key.secret);
    const page = await call('GET', `${gateway}/dashboard/recover?since=2026-11-24T09:00`, {
      headers: { cookie: otherCookie },
    });
    const otherCsrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    expect(otherCsrf).not.toBe('');
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    const missing = await call('POST', `${gateway}/dashboard/recover`, {
      headers: form,
      body: 'since=2026-11-24T09%3A00',
    });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('Please try again');
    const wrong = await call('POST', `${gateway}/dashboard/recover`, {
      headers: form,
      body: `since=2026-11-24T09%3A00&csrf=${encodeURIComponent(otherCsrf)}`,
    });
    expect(wrong.status).toBe(403);
    const logout = await call('POST', `${gateway}/dashboard/logout`, { headers: form, body: '' });
    expect(logout.status).toBe(403);
  });

  it('When a session logs out, then its cookie no longer works on any replica', async () => {
    const { key } = await merchant();
    const cookie = await login(key.secret);
    const page = await call('GET', `${replica}/dashboard/recover?since=2026-11-24T09:00`, { headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const out = await call('POST', `${replica}/dashboard/logout`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: `csrf=${encodeURIComponent(csrf)}`,
    });
    expect(out.status).toBe(200);
    expect((await call('GET', `${gateway}/dashboard/recover`, { headers: { cookie } })).status).toBe(401);
  });

  it('When a session is 12 hours old, then it has ended', async () => {
    const { key } = await merchant();
    const cookie = await login(key.secret);
    now = new Date(now.getTime() + 12 * 60 * MINUTE + 1);
    expect((await call('GET', `${gateway}/dashboard/recover`, { headers: { cookie } })).status).toBe(401);
  });

  it("When a session's pages pass its key's rate limit, then 429 with Retry-After, API requests and pages sharing the key's budget (D43)", async () => {
    const { key } = await merchant();
    // One budget for the key: the link (an API request) and three pages; opening and using the link count nothing.
    const { path } = await loginLink(key.secret, limitedReplica);
    const { pressed } = await openAndPress(path, { base: limitedReplica });
    const cookie = cookieOf(pressed);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await call('GET', `${limitedReplica}/dashboard/recover`, { headers: { cookie } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await call('GET', `${limitedReplica}/dashboard/recover`, { headers: { cookie } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.text).toContain('Too many requests');
    const api = await call('POST', `${limitedReplica}/v0/dashboard/login_links`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(api.status).toBe(429);
  });

  it('When one unknown session cookie is sent 20 times, then it costs one database read', async () => {
    const cookie = `checkout_dashboard=${'u'.repeat(43)}`;
    const { result, commands } = await limitedCommands.during(async () => {
      const answers: number[] = [];
      for (let i = 0; i < 20; i += 1)
        answers.push((await call('GET', `${limitedReplica}/dashboard/recover`, { headers: { cookie } })).status);
      return answers;
    });
    expect(new Set(result)).toEqual(new Set([401]));
    expect(commands.find ?? 0).toBe(1);
  });
});
