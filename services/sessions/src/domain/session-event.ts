import { SESSION_EVENT_TYPES, SessionEventV1, newId, type SessionEventStatus } from '@checkout/contracts';
import type { OrderView } from './ports';
import type { SessionDocument } from '../store/session.document';
import { presentSession } from './session.presenter';

/**
 * The session event (D30) of `doc` reaching `status`, as sessions produces it on the session events topic: a
 * SessionEventV1 envelope whose type comes from the catalog (SESSION_EVENT_TYPES), parsed here so a producer
 * bug fails at the source. `doc` is the session as it is stored with the event. Its own function so the message
 * fixtures (libs/contracts/fixtures/messages) are built by the code that produces the real ones.
 */
export function sessionEventMessage(
  doc: SessionDocument,
  order: OrderView,
  status: SessionEventStatus,
  now: Date,
  checkoutBaseUrl: string,
): SessionEventV1 {
  const eventId = newId('evt', doc.mode);
  const createdAt = now.toISOString();
  const session = presentSession(doc, order, now, checkoutBaseUrl);
  const type = SESSION_EVENT_TYPES[status];
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
