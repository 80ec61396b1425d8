import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import type { CheckoutSession, ShippingAddress, UpdateSessionRequest } from '@checkout/contracts';
import type { OrderSnapshot } from '../clients/orders.client';
import type { CollectedInputs, SessionDocument } from '../store/session.document';
import { presentSession } from './session.presenter';
import { effectiveStatus, extendedExpiry, isDue, mergeSessionData } from './session';
import { paySession, type PaidSession, type PaymentAttempt } from './pay-session.flow';
import {
  orderOf,
  scopeOf,
  sessionNotFound,
  sessionNotPayable,
  transitionSession,
  withSessionEvent,
  type SessionDeps,
  type SessionWithOrder,
} from './session-transition';

/** A change of the order sessions learned from orders' events (flow 5): the order and the revision its write stored. */
export interface OrderChange {
  orderId: string;
  snapshot: OrderSnapshot;
}

/**
 * The session use cases. A session carries its own copy of its order (orderJson, orderRevision): reads present
 * it and never call orders; it is replaced by any newer snapshot, from the answers of sessions' own calls to
 * orders and from orders' events. Every write of a session is one conditional update (transitionSession), and
 * each first lets the stored status catch up with the facts (order completed or cancelled, expiresAt passed)
 * via settle(), firing the event that change owes. Whoever writes a change first writes its event with it
 * (one document write, then the outbox relay publishes); a writer that loses re-reads and finds it done.
 * Paying is its own flow (pay-session.flow.ts).
 */
export class SessionCommands {
  constructor(private readonly deps: SessionDeps) {}

  present(view: SessionWithOrder): CheckoutSession {
    return presentSession(view.doc, view.order, this.deps.clock(), this.deps.checkoutBaseUrl);
  }

  /** GET session: one read of the session; the order is its copy (no call to orders). */
  async get(scope: Scope, id: string): Promise<SessionWithOrder> {
    const doc = await this.deps.store.getSession(scope, id);
    if (!doc) throw sessionNotFound(id);
    return { doc, order: orderOf(doc) };
  }

  /** D47: a page of sessions, newest first, each with its order copy (the dashboard's list). */
  async list(scope: Scope, page: number, limit: number): Promise<{ views: SessionWithOrder[]; total: number }> {
    const { sessions, total } = await this.deps.store.listSessions(scope, page, limit);
    return { views: sessions.map((doc) => ({ doc, order: orderOf(doc) })), total };
  }

  /** The hosted page and processor notifications know only the session id; the tenant comes from the session. */
  async findPublic(id: string): Promise<SessionWithOrder | null> {
    const doc = await this.deps.store.findByIdAcrossTenants(id);
    return doc && { doc, order: orderOf(doc) };
  }

  /** D23: extendExpiry while pending (7-day lifetime cap); sessionData merged shallowly in any status. */
  async update(scope: Scope, id: string, patch: UpdateSessionRequest): Promise<SessionWithOrder> {
    return transitionSession(this.deps, {
      scope,
      sessionId: id,
      change: ({ doc, now }) => {
        let next = doc;
        if (patch.extendExpiry !== undefined) {
          next = { ...next, expiresAt: extendedExpiry(next, patch.extendExpiry) };
        }
        if (patch.sessionData !== undefined) {
          const json = mergeSessionData(next.sessionDataJson, patch.sessionData);
          if (json !== next.sessionDataJson) next = { ...next, sessionDataJson: json };
        }
        return next === doc ? null : { ...next, updatedAt: now };
      },
    });
  }

  /**
   * D29 expire helper: the session expires now, with its event, exactly like a natural expiry. Orders closes
   * the order to payments first; a payment that reached orders before that wins, and this is refused.
   */
  async expireNow(scope: Scope, id: string): Promise<SessionWithOrder> {
    const doc = await this.deps.store.getSession(scope, id);
    if (!doc) throw sessionNotFound(id);
    const closed = doc.status === 'pending' ? await this.deps.orders.closePayments(scope, doc.orderId) : undefined;
    return transitionSession(this.deps, {
      scope,
      sessionId: id,
      read: doc,
      newerOrder: closed,
      change: ({ doc: current, order, now, caughtUpTo }) => {
        // Due but not yet swept: catching up just expired it, with its event; that is what was asked.
        if (caughtUpTo === 'expired') return null;
        if (current.status !== 'pending') {
          throw new DomainError(
            'SESSION_UPDATE_FAILED',
            `The session is ${current.status}; only a pending session can be expired.`,
          );
        }
        const expiresAt = isDue(current.expiresAt, now) ? current.expiresAt : now;
        return withSessionEvent(
          this.deps,
          { ...current, status: 'expired', expiresAt, updatedAt: now },
          order,
          'expired',
          now,
        );
      },
    });
  }

  /** Stores what the hosted page collected (requireFromCustomer) on the session, and what fits on the order. */
  async collectInputs(id: string, inputs: CollectedInputs): Promise<SessionWithOrder> {
    const found = await this.deps.store.findByIdAcrossTenants(id);
    if (!found) throw sessionNotFound(id);
    const scope = scopeOf(found);
    const order = orderOf(found);
    if (effectiveStatus(found.status, order.status, found.expiresAt, this.deps.clock()) !== 'pending') {
      // Not pending: let the stored status catch up (with its event), then refuse.
      await transitionSession(this.deps, { scope, sessionId: id, read: found });
      throw sessionNotPayable(effectiveStatus(found.status, order.status, found.expiresAt, this.deps.clock()));
    }
    const patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } } = {};
    if (inputs.shippingAddress) patch.shippingAddress = inputs.shippingAddress;
    // An order's customer needs an email; without a customer the phone stays on the session only.
    if (inputs.phone && order.customer) patch.customer = { phone: inputs.phone };
    // The order is updated first (no session state is held across the call); the session then records the
    // inputs, and orders' answer, if it is still pending.
    const updated =
      Object.keys(patch).length > 0 ? await this.deps.orders.update(scope, found.orderId, patch) : undefined;
    return transitionSession(this.deps, {
      scope,
      sessionId: id,
      read: found,
      newerOrder: updated,
      change: ({ doc, now }) => {
        if (doc.status !== 'pending') throw sessionNotPayable(doc.status);
        return { ...doc, collected: { ...doc.collected, ...inputs }, updatedAt: now };
      },
    });
  }

  /** Flow 3 (pay-session.flow.ts): the one path every payment takes, test or live (D27). */
  pay(scope: Scope, id: string, attempt: PaymentAttempt, found?: SessionDocument): Promise<PaidSession> {
    return paySession(this.deps, scope, id, attempt, found);
  }

  /**
   * Flow 5: orders changed an order (applied a payment, completed, cancelled, updated or closed it). A newer
   * snapshot replaces the session's copy, and the stored status catches up with it exactly as on any write: a
   * completed order completes a pending session with its event (also when this process died after orders applied
   * the payment and before storing it), a cancelled one cancels it (D25, no event). An older or repeated event
   * finds nothing to do: one read, no write.
   */
  async onOrderChanged(scope: Scope, change: OrderChange): Promise<void> {
    const found = await this.deps.store.findByOrderId(scope, change.orderId);
    if (found) await this.takeNewerOrder(scope, found, change.snapshot);
  }

  /**
   * D46: a merchant's cancel or edit of a session's order is in the session before the merchant is answered: the
   * gateway hands the session orders' answer (the order and its revision) here, and waits. The same catch-up as
   * an order event, which stays the at-least-once path for the same change; whichever comes second finds
   * nothing newer (one read, no write).
   */
  async takeOrderSnapshot(scope: Scope, sessionId: string, snapshot: OrderSnapshot): Promise<void> {
    const found = await this.deps.store.getSession(scope, sessionId);
    if (!found || found.orderId !== snapshot.order.id) throw sessionNotFound(sessionId);
    await this.takeNewerOrder(scope, found, snapshot);
  }

  /**
   * Stores a newer snapshot, and what the status owes once it is known (cancelled, completed), in one write. A
   * higher revision that shows the same order (orders' outbox relay bumps the revision when it marks an event
   * sent) is not worth a write: the copy already shows it.
   */
  private async takeNewerOrder(scope: Scope, found: SessionDocument, snapshot: OrderSnapshot): Promise<void> {
    const newer = snapshot.revision > found.orderRevision && JSON.stringify(snapshot.order) !== found.orderJson;
    const settlementOwed = found.status === 'pending' && orderOf(found).status !== 'open';
    if (!newer && !settlementOwed) return;
    await transitionSession(this.deps, { scope, sessionId: found._id, read: found, newerOrder: snapshot });
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
        const { written } = await transitionSession(this.deps, {
          scope: scopeOf(candidate),
          sessionId: candidate._id,
          read: candidate,
        });
        if (written) changed += 1;
      } catch (err) {
        this.deps.logger.warn(
          { err, sessionId: candidate._id },
          'expiry sweep of a session failed; next sweep retries',
        );
      }
    }
    return changed;
  }
}
