import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';

// What a delivery sends, as pure functions: the body as stored once per event, and the secrets each attempt is signed
// with (D35, D50; the headers and their signature are the contract's: libs/contracts' webhookHeaders).

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
