import { SESSION_COMPLETED, SESSION_EXPIRED, SessionEventV1, newId } from '@checkout/contracts';
import type { OrderView } from '../clients/orders.client';
import type { SessionDocument } from '../store/session.document';
import { presentSession } from './session.presenter';

/**
 * The message sessions produces on the session events topic for a transition of `doc` (a SessionEventV1
 * envelope, parsed here so a producer bug fails at the source). Its own function so the message fixtures
 * (libs/contracts/fixtures/messages) are built by the code that produces the real ones.
 */
export function sessionEventMessage(
  doc: SessionDocument,
  order: OrderView,
  kind: 'completed' | 'expired',
  now: Date,
  checkoutBaseUrl: string,
): SessionEventV1 {
  const eventId = newId('evt', doc.mode);
  const createdAt = now.toISOString();
  const session = presentSession(doc, order, now, checkoutBaseUrl);
  const type = kind === 'completed' ? SESSION_COMPLETED : SESSION_EXPIRED;
  return SessionEventV1.parse({
    version: 1,
    eventId,
    occurredAt: createdAt,
    organizationId: doc.organizationId,
    mode: doc.mode,
    sessionId: doc._id,
    callbackUrl: doc.callbackUrl,
    type,
    body: { id: eventId, event: type, createdAt, session },
  });
}
