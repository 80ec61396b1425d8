import { deliveryHeaders, signatureHeaders } from '@checkout/contracts';
import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';

// What a delivery sends, as pure functions: the body as stored once per event, and each attempt's headers (D2),
// signed in the Standard Webhooks format when the delivery has secrets (D35, D50).

/**
 * The webhook body exactly as D30 and D49 order it: `{id, event, createdAt, session}`, or `{id, event, createdAt,
 * order}` and `{id, event, createdAt, refund, order}` as orders produced them (plus anything newer a producer added).
 */
export function webhookBodyJson(rawBody: Record<string, unknown>): string {
  const { id, event, createdAt, session, ...rest } = rawBody;
  return JSON.stringify({ id, event, createdAt, session, ...rest });
}

/** Every secret a delivery to this endpoint is signed with at `now`: its own, then the one it replaced within 24 h. */
export function signingSecretsOf(endpoint: Pick<WebhookEndpointDocument, 'secret' | 'previousSecret'>, now: Date) {
  const previous = endpoint.previousSecret;
  return previous && previous.until.getTime() > now.getTime() ? [endpoint.secret, previous.secret] : [endpoint.secret];
}

/**
 * One attempt's headers: the delivery's own, and a signature by each secret (none without secrets). Throws when a
 * secret cannot be used (malformed): nothing may then be sent unsigned.
 */
export function attemptHeaders(input: {
  eventId: string;
  deliveryId: string;
  eventType: string;
  body: string;
  secrets: readonly string[];
  /** Unix seconds at signing. */
  timestamp: number;
}): Record<string, string> {
  const headers = deliveryHeaders(input);
  if (input.secrets.length === 0) return headers;
  const signature = signatureHeaders({
    secret: input.secrets,
    id: input.eventId,
    timestamp: input.timestamp,
    body: input.body,
  });
  return { ...headers, ...signature };
}
