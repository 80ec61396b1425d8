import { newId, newLineId, SessionEventV1, type EventType, type Mode } from '@checkout/contracts';

// Test data factories: valid by default, each test overrides only what it is about.

export interface SessionEventOverrides {
  mode?: Mode;
  organizationId?: string;
  callbackUrl?: string | null;
  type?: EventType;
  createdAt?: string;
  /** Reuse a session id (same Kafka key, so same partition and order). */
  sessionId?: string;
  /** Extra data carried in the body, e.g. a produce timestamp for latency measurements. */
  sessionData?: Record<string, string | number>;
}

/** A valid SessionEventV1 envelope; ids are of the given mode and consistent with each other. */
export function buildSessionEvent(overrides: SessionEventOverrides = {}): SessionEventV1 {
  const mode = overrides.mode ?? 'test';
  const type = overrides.type ?? 'checkout.session.completed';
  const createdAt = overrides.createdAt ?? new Date().toISOString();
  const eventId = newId('evt', mode);
  const sessionId = overrides.sessionId ?? newId('cs', mode);
  const orderId = newId('ord', mode);
  const callbackUrl = overrides.callbackUrl === undefined ? null : overrides.callbackUrl;
  const completed = type === 'checkout.session.completed';
  const session = {
    id: sessionId,
    url: `https://checkout.example.test/${sessionId}`,
    status: completed ? 'completed' : 'expired',
    active: false,
    failedAttempts: 0,
    successUrl: null,
    callbackUrl,
    expiresAt: createdAt,
    createdAt,
    updatedAt: createdAt,
    requireFromCustomer: { phone: false, shippingAddress: false, location: false },
    sessionData: { 'dotted.key': 'kept', ...(overrides.sessionData ?? {}) },
    order: {
      id: orderId,
      provider: 'native',
      currency: 'USD',
      status: completed ? 'completed' : 'open',
      paymentStatus: completed ? 'paid' : 'unpaid',
      amounts: { subtotal: 3097, tax: 0, discount: 0, tip: 0, total: 3097, paid: completed ? 3097 : 0 },
      items: [
        { id: newLineId('item'), name: 'Widget', quantity: 1, unitPrice: 3097, totalPrice: 3097, itemType: 'product' },
      ],
      taxes: [],
      discounts: [],
      metadata: { 'a.b': 'c' },
      ...(completed && { paidAt: createdAt }),
      createdAt,
      updatedAt: createdAt,
    },
  };
  const envelope = {
    version: 1,
    eventId,
    occurredAt: createdAt,
    organizationId: overrides.organizationId ?? 'org_test_dispatcher',
    mode,
    sessionId,
    callbackUrl,
    type,
    body: { id: eventId, event: type, createdAt, session },
  };
  return SessionEventV1.parse(envelope);
}
