import { randomBytes } from 'node:crypto';
import { request } from 'undici';

// How the recording journey (recording-journey.ts) talks to the stack: as a merchant's API client, and as a browser
// would to the hosted page's payment form (D41) and the dashboard's pages, forms and login link (D47), with the
// cookies and CSRF tokens a browser sends.

/** Sends the hosted page's payment form as a customer's browser would (its CSRF cookie and token, D41). */
export async function hostedPagePay(
  gatewayUrl: string,
  sessionId: string,
  fields: Record<string, string>,
): Promise<void> {
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
export async function page(gatewayUrl: string, cookie: string, path: string): Promise<string> {
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
export async function dashboardForm(
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
export async function confirmed(gatewayUrl: string, cookie: string, path: string): Promise<void> {
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
export async function dashboardLogin(url: string): Promise<string> {
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

/** An answer's JSON, or undefined when it has none. */
export const jsonOrUndefined = (text: string): unknown => {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** A merchant's HTTP client for the journey: every call must answer as expected, or the recording stops. */
export function client(baseUrl: string, key: string) {
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
