import type { WebhookEndpoint, WebhookEndpointWithSecret } from '@checkout/contracts';
import type { WebhookEndpointDocument } from '../store/webhook-endpoint.document';
import { endpointMetadata } from '../domain/webhook-endpoints';

/** D50: an endpoint as the API shows it; its secret never, except in the answers that make one. */
export function presentEndpoint(doc: WebhookEndpointDocument): WebhookEndpoint {
  return {
    id: doc._id,
    url: doc.url,
    enabledEvents: doc.enabledEvents as WebhookEndpoint['enabledEvents'],
    ...(doc.description !== undefined && { description: doc.description }),
    metadata: endpointMetadata(doc),
    disabled: doc.disabled !== null,
    ...(doc.disabled !== null && {
      disabledReason: { code: doc.disabled.reason, message: doc.disabled.message, at: doc.disabled.at.toISOString() },
    }),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

/** The answer to a create or a rotation: the only time the secret is shown (D50). */
export function presentEndpointWithSecret(doc: WebhookEndpointDocument): WebhookEndpointWithSecret {
  return { ...presentEndpoint(doc), secret: doc.secret };
}
