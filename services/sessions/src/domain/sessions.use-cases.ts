import type { Logger } from '@checkout/logger';
import { DependencyUnavailableError, DomainError, isDomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { appendToOutbox, type OutboxRelay } from '@checkout/kafka';
import {
  SESSION_COMPLETED,
  SESSION_EXPIRED,
  SessionEventV1,
  newId,
  type CheckoutSession,
  type OrderStatus,
  type PaymentMethod,
  type ShippingAddress,
  type UpdateSessionRequest,
} from '@checkout/contracts';
import type { OrdersClient, OrderView } from '../clients/orders-client';
import type { SessionsStore } from '../store/sessions.store';
import type { CollectedInputs, SessionDocument } from '../store/session-document';
import { presentSession } from './present-session';
import { amountDue, effectiveStatus, extendedExpiry, isDue, mergeSessionData, settle } from './session';

/** Each lost race means another writer succeeded, so the loop ends; the bound only guards against a bug. */
const MAX_TRANSITION_ATTEMPTS = 100;

export interface SessionCommandsDeps {
  store: SessionsStore;
  orders: OrdersClient;
  relay: OutboxRelay<SessionDocument>;
  sessionEventsTopic: string;
  checkoutBaseUrl: string;
  clock: () => Date;
  logger: Logger;
}

/** A payment attempt, from a test simulator (hosted page or test helper) or a live processor notification. */
export type PaymentAttempt =
  | { source: 'simulator'; method: PaymentMethod; amount?: number; outcome: 'succeeded' | 'declined'; cardLast4?: string }
  | { source: 'processor'; paymentId: string; method: PaymentMethod; amount: number; capturedAt: Date };

export type PaymentResult = 'succeeded' | 'declined';

export interface SessionWithOrder {
  doc: SessionDocument;
  order: OrderView;
}

/**
 * The session use cases. Every write of a session is one conditional update (transition), and each first lets
 * the stored status catch up with the facts (order completed or cancelled, expiresAt passed) via settle(),
 * firing the event that transition owes. Whoever writes a transition first writes its event with it (one
 * document write, then the outbox relay publishes); a writer that loses re-reads and finds it done.
 */
export class SessionCommands {
  constructor(private readonly deps: SessionCommandsDeps) {}

  present(view: SessionWithOrder): CheckoutSession {
    return presentSession(view.doc, view.order, this.deps.clock(), this.deps.checkoutBaseUrl);
  }

  async get(scope: Scope, id: string): Promise<SessionWithOrder> {
    const doc = await this.deps.store.getSession(scope, id);
    if (!doc) throw notFound(id);
    return { doc, order: await this.deps.orders.get(scope, doc.orderId) };
  }

  /** The hosted page and processor notifications know only the session id; the tenant comes from the session. */
  async findPublic(id: string): Promise<SessionWithOrder | null> {
    const doc = await this.deps.store.findByIdAcrossTenants(id);
    if (!doc) return null;
    return { doc, order: await this.deps.orders.get(scopeOf(doc), doc.orderId) };
  }

  /** D23: extendExpiry while pending (7-day lifetime cap); sessionData merged shallowly in any status. */
  async update(scope: Scope, id: string, patch: UpdateSessionRequest): Promise<SessionWithOrder> {
    return this.transition(scope, id, null, null, ({ doc, now }) => {
      let next = doc;
      if (patch.extendExpiry !== undefined) {
        next = { ...next, expiresAt: extendedExpiry(next, patch.extendExpiry) };
      }
      if (patch.sessionData !== undefined) {
        const json = mergeSessionData(next.sessionDataJson, patch.sessionData);
        if (json !== next.sessionDataJson) next = { ...next, sessionDataJson: json };
      }
      return next === doc ? null : { ...next, updatedAt: now };
    });
  }

  /**
   * D29 expire helper: the session expires now, with its event, exactly like a natural expiry. Orders closes
   * the order to payments first; a payment that reached orders before that wins, and this is refused.
   */
  async expireNow(scope: Scope, id: string): Promise<SessionWithOrder> {
    const doc = await this.deps.store.getSession(scope, id);
    if (!doc) throw notFound(id);
    const order = doc.status === 'pending' ? await this.deps.orders.closePayments(scope, doc.orderId) : await this.deps.orders.get(scope, doc.orderId);
    return this.transition(scope, id, { doc, order }, null, ({ doc: current, order: latest, now, caughtUp }) => {
      // Due but not yet swept: catching up just expired it, with its event; that is what was asked.
      if (caughtUp === 'expired') return null;
      if (current.status !== 'pending') {
        throw new DomainError('SESSION_UPDATE_FAILED', `The session is ${current.status}; only a pending session can be expired.`);
      }
      const expiresAt = isDue(current.expiresAt, now) ? current.expiresAt : now;
      return this.withEvent({ ...current, status: 'expired', expiresAt, updatedAt: now }, latest, 'expired', now);
    });
  }

  /** Stores what the hosted page collected (requireFromCustomer) on the session, and what fits on the order. */
  async collectInputs(id: string, inputs: CollectedInputs): Promise<SessionWithOrder> {
    const found = await this.deps.store.findByIdAcrossTenants(id);
    if (!found) throw notFound(id);
    const scope = scopeOf(found);
    let order = await this.deps.orders.get(scope, found.orderId);
    if (effectiveStatus(found.status, order.status, found.expiresAt, this.deps.clock()) !== 'pending') {
      // Not pending: let the stored status catch up (with its event), then refuse.
      await this.transition(scope, id, { doc: found, order }, null, null);
      throw notPayable(effectiveStatus(found.status, order.status, found.expiresAt, this.deps.clock()));
    }
    const patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } } = {};
    if (inputs.shippingAddress) patch.shippingAddress = inputs.shippingAddress;
    // An order's customer needs an email; without a customer the phone stays on the session only.
    if (inputs.phone && order.customer) patch.customer = { phone: inputs.phone };
    // The order is updated first (no session state is held across the call); the session then records the
    // inputs if it is still pending.
    if (Object.keys(patch).length > 0) order = await this.deps.orders.update(scope, found.orderId, patch);
    return this.transition(scope, id, { doc: found, order }, null, ({ doc, now }) => {
      if (doc.status !== 'pending') throw notPayable(doc.status);
      return { ...doc, collected: { ...doc.collected, ...inputs }, updatedAt: now };
    });
  }

  /**
   * Flow 3, the one path every payment takes (D27): simulated in test mode, reported by the processor in live
   * mode. Catch up with the facts, refuse a session that is not pending (exact expiry, D21), record the attempt
   * by payment id, and let orders decide: it applies a payment at most once, to an open order whose checkout has
   * not expired, in one conditional update (so pay against cancel, against expire, and two full payments are
   * decided there). Then store `completed` with its event, by one conditional update of the session. Nothing
   * is locked meanwhile. The event is published before this returns, so a redirect follows it.
   */
  async pay(scope: Scope, id: string, attempt: PaymentAttempt): Promise<{ view: SessionWithOrder; result: PaymentResult }> {
    const { store, orders } = this.deps;
    const read = await store.getSession(scope, id);
    if (!read) throw notFound(id);
    const now = this.deps.clock();
    // A processor reports a capture that happened at capturedAt; it counts as paid then (never later than now).
    const acceptAt = attempt.source === 'processor' && attempt.capturedAt < now ? attempt.capturedAt : now;
    let { doc, order } = await this.transition(scope, id, { doc: read, order: await orders.get(scope, read.orderId) }, acceptAt, null);
    if (attempt.source === 'processor') {
      // A replayed notification of a payment that was already applied answers with the session as it is.
      const previous = await store.getPayment(scope, attempt.paymentId);
      if (previous?.status === 'applied') return { view: { doc, order }, result: 'succeeded' };
    }
    if (doc.status !== 'pending') throw notPayable(doc.status);

    const paymentId = attempt.source === 'processor' ? attempt.paymentId : newId('pay', scope.mode);
    const amount = attempt.amount ?? amountDue(order.amounts);
    if (amount < 1) throw new DomainError('SESSION_NOT_PAYABLE', 'Nothing is due on this session.');
    const record = {
      _id: paymentId,
      sessionId: id,
      orderId: doc.orderId,
      method: attempt.method,
      amount,
      status: 'pending' as const,
      ...(attempt.source === 'simulator' && attempt.cardLast4 !== undefined && { cardLast4: attempt.cardLast4 }),
      source: attempt.source,
      createdAt: now,
      updatedAt: now,
    };

    if (attempt.source === 'simulator' && attempt.outcome === 'declined') {
      await store.insertPayment(scope, { ...record, status: 'declined' });
      const counted = await store.countDeclined(scope, id, now);
      if (!counted) throw notPayable((await store.getSession(scope, id))?.status ?? 'gone');
      return { view: { doc: counted, order }, result: 'declined' };
    }

    // A repeated processor notification finds its record already there; orders still dedupes by payment id,
    // which also repairs a crash between recording the payment and applying it.
    await store.insertPayment(scope, record);
    try {
      order = (await orders.applyPayment(scope, doc.orderId, { paymentId, amount, method: attempt.method })).order;
    } catch (err) {
      if (isDomainError(err) && err.code === 'SESSION_NOT_PAYABLE') {
        // Orders refused: the order was cancelled, completed or closed by an expiry meanwhile (D25, D21).
        await store.setPaymentStatus(scope, paymentId, 'rejected', now);
        await this.transition(scope, id, null, null, null);
      }
      throw err;
    }
    await store.setPaymentStatus(scope, paymentId, 'applied', now);
    ({ doc } = await this.transition(scope, id, { doc, order }, acceptAt, null));
    return { view: { doc, order }, result: 'succeeded' };
  }

  /** D25: the order was cancelled; a pending session becomes cancelled (no event). */
  async onOrderCancelled(scope: Scope, orderId: string): Promise<void> {
    const found = await this.deps.store.findByOrderId(scope, orderId);
    if (!found || found.status !== 'pending') return;
    await this.transition(scope, found._id, null, null, null);
  }

  /**
   * Flow 4, one sweep: every pending session whose expiresAt has passed catches up. Each write is conditional
   * on the revision read, so a second sweeper (another replica) loses, re-reads, finds nothing left to do, and
   * each session fires its expired event exactly once.
   */
  async sweepDue(limit = 100): Promise<number> {
    const due = await this.deps.store.findDuePendingAcrossTenants(this.deps.clock(), limit);
    let changed = 0;
    for (const candidate of due) {
      try {
        const { written } = await this.transition(scopeOf(candidate), candidate._id, null, null, null);
        if (written) changed += 1;
      } catch (err) {
        this.deps.logger.warn({ err, sessionId: candidate._id }, 'expiry sweep of a session failed; next sweep retries');
      }
    }
    return changed;
  }

  /**
   * The one way a session is written (apart from countDeclined's $inc): what the facts owe (catch-up, see
   * owed) and what `change` asks, stored together by one conditional update (the revision read is the expected
   * state). Losing that race re-reads the session and its order and decides again, so nothing is ever locked.
   * `change` gets the session after catch-up and returns its next version, or null for no change; if it
   * throws, the catch-up alone is still written (it owes its event) before the error is passed on.
   * `start` is a session and order just read; `at` the instant the facts are judged at (default: now).
   */
  private async transition(
    scope: Scope,
    id: string,
    start: SessionWithOrder | null,
    at: Date | null,
    change: ((current: { doc: SessionDocument; order: OrderView; now: Date; caughtUp: SessionDocument['status'] | null }) => SessionDocument | null) | null,
  ): Promise<SessionWithOrder & { written: boolean }> {
    let current = start;
    for (let attempt = 1; ; attempt += 1) {
      if (!current) {
        const doc = await this.deps.store.getSession(scope, id);
        if (!doc) throw notFound(id);
        current = { doc, order: await this.deps.orders.get(scope, doc.orderId) };
      }
      const now = this.deps.clock();
      const caughtUp = await this.owed(scope, current.doc, current.order, at ?? now, now);
      const order = caughtUp?.order ?? current.order;
      const base = caughtUp?.doc ?? current.doc;
      let next: SessionDocument | null = null;
      let refusal: unknown;
      let refused = false;
      try {
        next = change ? change({ doc: base, order, now, caughtUp: caughtUp ? caughtUp.doc.status : null }) : null;
      } catch (err) {
        refusal = err;
        refused = true;
      }
      const final = next ?? caughtUp?.doc ?? null;
      if (final === null) {
        if (refused) throw refusal;
        return { doc: current.doc, order, written: false };
      }
      const stored = await this.deps.store.replaceSession(scope, current.doc, final);
      if (stored) {
        if (stored.outboxPending) await this.publish(id);
        if (refused) throw refusal;
        return { doc: stored, order, written: true };
      }
      if (attempt >= MAX_TRANSITION_ATTEMPTS) throw new DependencyUnavailableError(`session ${id}: ${attempt} concurrent writes in a row`);
      current = null;
    }
  }

  /**
   * The stored transition the facts owe at `at` (see settle), with its event; null when none is owed. Before a
   * session is stored as expired, orders closes the order to payments: if a payment got there first, the
   * order's answer says completed and the session completes instead (D21, D27).
   */
  private async owed(scope: Scope, doc: SessionDocument, order: OrderView, at: Date, now: Date): Promise<{ doc: SessionDocument; order: OrderView } | null> {
    let latest = order;
    let transition = settle(doc.status, latest.status as OrderStatus, doc.expiresAt, at);
    if (transition?.status === 'expired') {
      latest = await this.deps.orders.closePayments(scope, doc.orderId);
      transition = settle(doc.status, latest.status as OrderStatus, doc.expiresAt, at);
    }
    if (!transition) return null;
    const next: SessionDocument = { ...doc, status: transition.status, updatedAt: now };
    return { doc: transition.event === null ? next : this.withEvent(next, latest, transition.event, now), order: latest };
  }

  /** Appends the session event (a SessionEventV1 envelope, parsed before it is stored) to the document's outbox. */
  private withEvent(doc: SessionDocument, order: OrderView, kind: 'completed' | 'expired', now: Date): SessionDocument {
    const eventId = newId('evt', doc.mode);
    const createdAt = now.toISOString();
    const session = presentSession(doc, order, now, this.deps.checkoutBaseUrl);
    const type = kind === 'completed' ? SESSION_COMPLETED : SESSION_EXPIRED;
    const envelope = SessionEventV1.parse({
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
    return appendToOutbox(doc, { eventId, topic: this.deps.sessionEventsTopic, key: doc._id, value: JSON.stringify(envelope), createdAt: now });
  }

  /** Flow 3: wait until the event is on Kafka. If the broker is down the relay's sweep publishes it later. */
  private async publish(id: string): Promise<void> {
    try {
      await this.deps.relay.publishNow(id);
    } catch (err) {
      this.deps.logger.warn({ err, sessionId: id }, 'publishing a session event failed; the outbox sweep will retry');
    }
  }
}

export function scopeOf(doc: { organizationId: string; mode: Scope['mode'] }): Scope {
  return { organizationId: doc.organizationId, mode: doc.mode };
}

function notFound(id: string): DomainError {
  return new DomainError('SESSION_NOT_FOUND', `No checkout session ${id} exists.`);
}

function notPayable(status: string): DomainError {
  return new DomainError('SESSION_NOT_PAYABLE', `The session is ${status}; it accepts no payment.`);
}
