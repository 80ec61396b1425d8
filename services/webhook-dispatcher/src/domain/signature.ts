import { createHmac } from 'node:crypto';

// D35: Standard Webhooks signatures. The secret is `whsec_<base64>`; the key is the decoded base64 part and the
// signed content is `<webhook-id>.<webhook-timestamp>.<body>`.

export const SECRET_PREFIX = 'whsec_';

export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook signing secret is empty');
  return key;
}

/** `v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`. */
export function signWebhook(input: { secret: string; id: string; timestamp: number; body: string }): string {
  const mac = createHmac('sha256', signingKey(input.secret)).update(`${input.id}.${input.timestamp}.${input.body}`).digest('base64');
  return `v1,${mac}`;
}

export function signatureHeaders(input: { secret: string; id: string; timestamp: number; body: string }): Record<string, string> {
  return { 'webhook-id': input.id, 'webhook-timestamp': String(input.timestamp), 'webhook-signature': signWebhook(input) };
}
