import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import {
  secretlyDerivedId,
  type CheckoutSession,
  type PayRequest,
  type PaymentMethod,
  type UpdateSessionRequest,
} from '@checkout/contracts';
import type { OrderSnapshot } from './ports';
import type { SessionDocument } from '../store/session.document';
import { presentSession } from './session.presenter';
import { effectiveStatus, extendedExpiry, mergeSessionData, owedStatus } from './session';
import { paySession, type PaidSession } from './pay-session.flow';
import { offers } from './payment-methods';
import { HostedPage } from './hosted-page';
import {
  mergeIntoSession,
  orderOf,
  scopeOf,
  sessionNotFound,
  settleSession,
  type SessionDeps,
  type SessionWithOrder,
} from './session-writes';

/** A change of the order sessions learned from orders' events (flow 5): the order and the revision its write stored. */
export interface OrderChange {
  orderId: string;
  snapshot: OrderSnapshot;
}

/** A captured payment a live processor reported (D27), authenticated by its signature. */
export interface ProcessorCapture {
  paymentId: string;
  sessionId: string;
  method: PaymentMethod;
  amount: number;
  capturedAt: Date;
}

/**
 * The session use cases. A session carries its own copy of its order (orderJson, orderRevision): reads present
 * it and never call orders; it is replaced by any newer snapshot, from the answers of sessions' own calls to
 * orders and from orders' events. Every write is a named conditional write of SessionsStore; what the facts owe
 * (its order completed or cancelled, its expiresAt passed) is stored by settleSession, with the event it fires.
 * Paying is its own flow (pay-session.flow.ts); the hosted page's use cases are HostedPage's.
 */
export class SessionCommands {
  readonly hostedPage: HostedPage;

  constructor(private readonly deps: SessionDeps) {
    this.hostedPage = new HostedPage(deps);
  }

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

  /**
   * D23: extendExpiry while pending (7-day lifetime cap); sessionData merged shallowly in any status. What the
   * facts owe is stored first (a due session expires with its event, and is then not extended). The change is one
   * named write over the session as read, merged again into what won if another write landed in between.
   */
  async update(scope: Scope, id: string, patch: UpdateSessionRequest): Promise<SessionWithOrder> {
    const now = this.deps.clock();
    const { doc: read } = await this.get(scope, id);
    const caughtUp = owedStatus(read.status, orderOf(read).status, read.expiresAt, now)
      ? (await settleSession(this.deps, read, { at: now })).doc
      : read;
    const doc = await mergeIntoSession(this.deps, caughtUp, async (current) => {
      const status = effectiveStatus(current.status, orderOf(current).status, current.expiresAt, now);
      const expiresAt =
        patch.extendExpiry === undefined ? undefined : extendedExpiry({ ...current, status }, patch.extendExpiry);
      const merged =
        patch.sessionData === undefined ? undefined : mergeSessionData(current.sessionDataJson, patch.sessionData);
      const sessionDataJson = merged === current.sessionDataJson ? undefined : merged;
      if (expiresAt === undefined && sessionDataJson === undefined) return current;
      return this.deps.store.updateSession(scopeOf(current), current, { expiresAt, sessionDataJson, now });
    });
    return { doc, order: orderOf(doc) };
  }

  /**
   * D29 expire helper: the session expires now, with its event, exactly like a natural expiry (a due one that was
   * not yet swept is expired as the sweep would). Orders closes the order to payments first; a payment that
   * reached orders before that wins, and this is refused, as it is for a session that was not pending.
   */
  async expireNow(scope: Scope, id: string): Promise<SessionWithOrder> {
    const { doc } = await this.get(scope, id);
    const settled =
      doc.status === 'pending' ? await settleSession(this.deps, doc, { at: this.deps.clock(), expireNow: true }) : null;
    if (settled?.doc.status === 'expired') return settled;
    throw new DomainError(
      'SESSION_UPDATE_FAILED',
      `The session is ${settled?.doc.status ?? doc.status}; only a pending session can be expired.`,
    );
  }

  /**
   * D29 pay helper: the hosted page's path without the page (merchants' automated tests have no customer, so
   * requireFromCustomer is not enforced), with a method the session offers (the payment methods table, as the
   * page). With an Idempotency-Key (D42) the payment's id comes from it, so a retry after an unknown outcome is
   * the same payment, which orders applies at most once, and not a second one.
   */
  async payWithTestHelper(
    scope: Scope,
    id: string,
    request: PayRequest,
    requestKey: string | undefined,
    idSecret: string,
  ): Promise<PaidSession> {
    const { doc } = await this.get(scope, id);
    const offered = await offers(doc.enabledPaymentMethods, request.method, this.hostedPage.offerContext(doc));
    if (offered !== true)
      throw new DomainError(
        'SESSION_NOT_PAYABLE',
        `This checkout does not offer ${request.method} payments (${offered}).`,
      );
    return paySession(this.deps, doc, {
      source: 'simulator',
      ...(requestKey !== undefined && {
        paymentId: secretlyDerivedId('pay', scope.mode, idSecret, `payment\n${scope.organizationId}\n${requestKey}`),
      }),
      method: request.method,
      outcome: request.outcome,
      ...(request.amount !== undefined && { amount: request.amount }),
    });
  }

  /**
   * D27: a live processor's capture, for the session it names (the tenant comes from the session). Judged at the
   * capture's time; a replayed payment id answers the session as it is.
   */
  async payCapture(capture: ProcessorCapture): Promise<PaidSession> {
    const doc = await this.deps.store.findByIdAcrossTenants(capture.sessionId);
    if (!doc) throw sessionNotFound(capture.sessionId);
    const { sessionId: _sessionId, ...payment } = capture;
    return paySession(this.deps, doc, { source: 'processor', ...payment });
  }

  /**
   * Flow 5: orders changed an order (applied a payment, completed, cancelled, updated or closed it). A newer
   * snapshot replaces the session's copy, and the stored status catches up with it as on any write: a completed
   * order completes a pending session with its event (also when this process died after orders applied the
   * payment and before storing it), a cancelled one cancels it (D25, no event). An older or repeated event finds
   * nothing to do: one read, no write.
   */
  async onOrderChanged(scope: Scope, change: OrderChange): Promise<void> {
    const found = await this.deps.store.findByOrderId(scope, change.orderId);
    if (found) await this.takeNewerOrder(found, change.snapshot);
  }

  /**
   * D46: a merchant's cancel or edit of a session's order is in the session before the merchant is answered: the
   * gateway hands the session orders' answer (the order and its revision) here, and waits. The same as an order
   * event, which stays the at-least-once path for the same change; whichever comes second finds nothing newer.
   */
  async takeOrderSnapshot(scope: Scope, sessionId: string, snapshot: OrderSnapshot): Promise<void> {
    const found = await this.deps.store.getSession(scope, sessionId);
    if (!found || found.orderId !== snapshot.order.id) throw sessionNotFound(sessionId);
    await this.takeNewerOrder(found, snapshot);
  }

  /**
   * A newer snapshot, with what the status owes once it is known (cancelled, completed), in one write. A higher
   * revision that shows the same order (orders' outbox relay bumps the revision when it marks an event sent) is
   * not worth a write: the copy already shows it.
   */
  private async takeNewerOrder(found: SessionDocument, snapshot: OrderSnapshot): Promise<void> {
    const newer = snapshot.revision > found.orderRevision && JSON.stringify(snapshot.order) !== found.orderJson;
    const settlementOwed = found.status === 'pending' && orderOf(found).status !== 'open';
    if (newer || settlementOwed) await settleSession(this.deps, found, { at: this.deps.clock(), answer: snapshot });
  }

  /**
   * D21, one sweep: every pending session whose expiresAt has passed is expired, with its event. Each expiry is a
   * conditional write on the pending session as read, so of two sweepers (two replicas) one writes it and the
   * other, losing, finds it expired: each session fires its expired event exactly once.
   */
  async sweepDue(limit = 100): Promise<number> {
    const due = await this.deps.store.findDuePendingAcrossTenants(this.deps.clock(), limit);
    let expired = 0;
    for (const candidate of due) {
      try {
        const settled = await settleSession(this.deps, candidate, { at: this.deps.clock() });
        // Counted by the sweeper whose write expired it: another sweeper that lost the race may still store a
        // newer order copy on the expired session (orders' answer to its close-payments call comes later).
        if (settled.settledAs === 'expired') expired += 1;
      } catch (err) {
        this.deps.logger.warn(
          { err, sessionId: candidate._id },
          'expiry sweep of a session failed; next sweep retries',
        );
      }
    }
    return expired;
  }
}
