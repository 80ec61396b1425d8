import { checkWebhookSignature, type WebhookEvent } from '@checkout/contracts';
import { WebhookVerificationError } from './errors';

export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(record).find((key) => key.toLowerCase() === name);
  const value = found === undefined ? undefined : record[found];
  return Array.isArray(value) ? value.join(' ') : value;
}

export const webhooks = {
  /**
   * Checks a signed delivery (D35, Standard Webhooks) and returns its event. `body` must be the raw request
   * body exactly as received, before any JSON parsing. Throws WebhookVerificationError otherwise.
   */
  verify(
    body: string | Uint8Array,
    headers: HeadersLike,
    secret: string,
    options: { toleranceSeconds?: number; now?: Date } = {},
  ): WebhookEvent {
    const raw = typeof body === 'string' ? body : new TextDecoder().decode(body);
    const check = checkWebhookSignature({
      secret,
      body: raw,
      id: header(headers, 'webhook-id'),
      timestamp: header(headers, 'webhook-timestamp'),
      signature: header(headers, 'webhook-signature'),
      nowSeconds: Math.floor((options.now ?? new Date()).getTime() / 1000),
      ...(options.toleranceSeconds !== undefined && { toleranceSeconds: options.toleranceSeconds }),
    });
    if (!check.ok) throw new WebhookVerificationError(`Webhook signature verification failed: ${check.reason}.`);
    return JSON.parse(raw) as WebhookEvent;
  },
};
export type Webhooks = typeof webhooks;
