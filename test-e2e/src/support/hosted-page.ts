import { request } from 'undici';

/**
 * Pays a session on its hosted page as a browser does: the page (its CSRF token and cookie), then the card form.
 * The answer's status (a redirect once paid).
 */
export async function payOnHostedPage(checkoutBaseUrl: string, sessionId: string, cardNumber: string): Promise<number> {
  const page = await request(`${checkoutBaseUrl}/${sessionId}`);
  const html = await page.body.text();
  const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const form = new URLSearchParams({ csrf, method: 'card', cardNumber });
  const paid = await request(`${checkoutBaseUrl}/${sessionId}/pay`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  await paid.body.text();
  return paid.statusCode;
}
