import type { Logger } from '@checkout/logger';
import { DomainError, isDomainError } from '@checkout/errors';
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
import { amountDue, extendedExpiry, isDue, mergeSessionData, settle } from './session';

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
 * The session use cases. Every read-modify-write of a session runs under its lease (sessions:<id>), and every
 * one of them first lets the stored status catch up with the facts (order completed or cancelled, expiresAt
 * passed) via settle(), firing the event that transition owes. So pay vs. expire cannot both win, and whoever
 * writes a transition first writes its event with it (one document write, then the outbox relay publishes).
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
    return this.mutate(scope, id, ({ doc, now }) => {
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

  /** D29 expire helper: the session expires now, with its event, exactly like a natural expiry. */
  async expireNow(scope: Scope, id: string): Promise<SessionWithOrder> {
    return this.mutate(scope, id, ({ doc, order, now, caughtUp }) => {
      // Due but not yet swept: catching up just expired it, with its event; that is what was asked.
      if (caughtUp === 'expired') return null;
      if (doc.status !== 'pending') {
        throw new DomainError('SESSION_UPDATE_FAILED', `The session is ${doc.status}; only a pending session can be expired.`);
      }
      const expiresAt = isDue(doc.expiresAt, now) ? doc.expiresAt : now;
      return this.withEvent({ ...doc, status: 'expired', expiresAt, updatedAt: now }, order, 'expired', now);
    });
  }

  /** Stores what the hosted page collected (requireFromCustomer) on the session, and what fits on the order. */
  async collectInputs(id: string, inputs: CollectedInputs): Promise<SessionWithOrder> {
    const found = await this.deps.store.findByIdAcrossTenants(id);
    if (!found) throw notFound(id);
    const scope = scopeOf(found);
    return this.mutate(scope, id, async ({ doc, order, now }) => {
      if (doc.status !== 'pending') throw notPayable(doc.status);
      const patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } } = {};
      if (inputs.shippingAddress) patch.shippingAddress = inputs.shippingAddress;
      // An order's customer needs an email; without a customer the phone stays on the session only.
      if (inputs.phone && order.customer) patch.customer = { phone: inputs.phone };
      if (Object.keys(patch).length > 0) await this.deps.orders.update(scope, doc.orderId, patch);
      return { ...doc, collected: { ...doc.collected, ...inputs }, updatedAt: now };
    });
  }

  /**
   * Flow 3, the one path every payment takes (D27): simulated in test mode, reported by the processor in live
   * mode. Under the session's lease: catch up with the facts, refuse a session that is not pending (exact expiry,
   * D21), record the attempt by payment id, let orders apply it at most once, and on completion store
   * `completed` with its event. The event is published before this returns, so a redirect follows it.
   */
  async pay(scope: Scope, id: string, attempt: PaymentAttempt): Promise<{ view: SessionWithOrder; result: PaymentResult }> {
    const { store, orders } = this.deps;
    let publish = false;
    let outcome: { doc: SessionDocument; order: OrderView; result: PaymentResult };
    try {
      outcome = await store.withSessionLease(id, async () => {
      let doc = await store.getSession(scope, id);
      if (!doc) throw notFound(id);
      const now = this.deps.clock();
      // A processor reports a capture that happened at capturedAt; it counts as paid then (never later than now).
      const acceptAt = attempt.source === 'processor' && attempt.capturedAt < now ? attempt.capturedAt : now;
      let order = await orders.get(scope, doc.orderId);
      const caughtUp = this.settled(doc, order, acceptAt, now);
      if (caughtUp) {
        await store.replaceSession(scope, caughtUp.doc);
        publish ||= caughtUp.event;
        doc = caughtUp.doc;
      }
      if (attempt.source === 'processor') {
        // A replayed notification of a payment that was already applied answers with the session as it is.
        const previous = await store.getPayment(scope, attempt.paymentId);
        if (previous?.status === 'applied') return { doc, order, result: 'succeeded' as const };
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
        doc = { ...doc, failedAttempts: doc.failedAttempts + 1, updatedAt: now };
        await store.replaceSession(scope, doc);
        return { doc, order, result: 'declined' as const };
      }

      // A repeated processor notification finds its record already there; orders still dedupes by payment id,
      // which also repairs a crash between recording the payment and applying it.
      await store.insertPayment(scope, record);
      const stored = (await store.getPayment(scope, paymentId)) ?? { ...record, organizationId: scope.organizationId, mode: scope.mode };
      try {
        order = (await orders.applyPayment(scope, doc.orderId, { paymentId, amount, method: attempt.method })).order;
      } catch (err) {
        if (isDomainError(err) && err.code === 'SESSION_NOT_PAYABLE') {
          // Orders refused: the order was cancelled (or completed) meanwhile; orders decided the race (D25).
          await store.setPaymentStatus(scope, stored, 'rejected', now);
          const latest = await orders.get(scope, doc.orderId);
          const after = this.settled(doc, latest, now, now);
          if (after) {
            await store.replaceSession(scope, after.doc);
            publish ||= after.event;
          }
        }
        throw err;
      }
      await store.setPaymentStatus(scope, stored, 'applied', now);
      const after = this.settled(doc, order, acceptAt, now);
      if (after) {
        await store.replaceSession(scope, after.doc);
        publish ||= after.event;
        doc = after.doc;
      }
      return { doc, order, result: 'succeeded' as const };
      });
    } finally {
      if (publish) await this.publish(id);
    }
    return { view: { doc: outcome.doc, order: outcome.order }, result: outcome.result };
  }

  /** D25: the order was cancelled; a pending session becomes cancelled (no event). */
  async onOrderCancelled(scope: Scope, orderId: string): Promise<void> {
    const found = await this.deps.store.findByOrderId(scope, orderId);
    if (!found) return;
    await this.deps.store.withSessionLease(found._id, async () => {
      const doc = await this.deps.store.getSession(scope, found._id);
      if (!doc || doc.status !== 'pending') return;
      const now = this.deps.clock();
      const transition = settle(doc.status, 'cancelled', doc.expiresAt, now);
      if (transition) await this.deps.store.replaceSession(scope, { ...doc, status: transition.status, updatedAt: now });
    });
  }

  /**
   * Flow 4, one sweep: every pending session whose expiresAt has passed catches up under its lease. The lease
   * plus the re-read status make a second sweeper (another replica) find nothing left to do, so each session
   * fires its expired event exactly once.
   */
  async sweepDue(limit = 100): Promise<number> {
    const due = await this.deps.store.findDuePendingAcrossTenants(this.deps.clock(), limit);
    let changed = 0;
    for (const candidate of due) {
      const scope = scopeOf(candidate);
      try {
        let publish = false;
        await this.deps.store.withSessionLease(candidate._id, async () => {
          const doc = await this.deps.store.getSession(scope, candidate._id);
          if (!doc || doc.status !== 'pending') return;
          const now = this.deps.clock();
          const order = await this.deps.orders.get(scope, doc.orderId);
          const after = this.settled(doc, order, now, now);
          if (!after) return;
          await this.deps.store.replaceSession(scope, after.doc);
          publish = after.event;
          changed += 1;
        });
        if (publish) await this.publish(candidate._id);
      } catch (err) {
        this.deps.logger.warn({ err, sessionId: candidate._id }, 'expiry sweep of a session failed; next sweep retries');
      }
    }
    return changed;
  }

  /** Read-modify-write under the lease, after catching up with the facts; `change` returns null for no write. */
  private async mutate(
    scope: Scope,
    id: string,
    change: (current: { doc: SessionDocument; order: OrderView; now: Date; caughtUp: SessionDocument['status'] | null }) => SessionDocument | null | Promise<SessionDocument | null>,
  ): Promise<SessionWithOrder> {
    let publish = false;
    try {
      return await this.deps.store.withSessionLease(id, async () => {
      let doc = await this.deps.store.getSession(scope, id);
      if (!doc) throw notFound(id);
      const now = this.deps.clock();
      const order = await this.deps.orders.get(scope, doc.orderId);
      const caughtUp = this.settled(doc, order, now, now);
      if (caughtUp) {
        await this.deps.store.replaceSession(scope, caughtUp.doc);
        publish = caughtUp.event;
        doc = caughtUp.doc;
      }
      const next = await change({ doc, order, now, caughtUp: caughtUp ? caughtUp.doc.status : null });
      if (next) {
        await this.deps.store.replaceSession(scope, next);
        if (next.outboxPending) publish = true;
        doc = next;
      }
      return { doc, order };
      });
    } finally {
      // Also when `change` refused: a transition written while catching up still owes its event now.
      if (publish) await this.publish(id);
    }
  }

  /** The stored transition owed by the facts at `at` (see settle), with its event; null when none is owed. */
  private settled(doc: SessionDocument, order: OrderView, at: Date, now: Date): { doc: SessionDocument; event: boolean } | null {
    const transition = settle(doc.status, order.status as OrderStatus, doc.expiresAt, at);
    if (!transition) return null;
    const next: SessionDocument = { ...doc, status: transition.status, updatedAt: now };
    if (transition.event === null) return { doc: next, event: false };
    return { doc: this.withEvent(next, order, transition.event, now), event: true };
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
