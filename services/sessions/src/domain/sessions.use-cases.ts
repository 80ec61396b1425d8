import type { Logger } from '@checkout/logger';
import { DependencyUnavailableError, DomainError, isDomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { appendToOutbox, type OutboxRelay } from '@checkout/kafka';
import {
  newId,
  type CheckoutSession,
  type OrderStatus,
  type PaymentMethod,
  type ShippingAddress,
  type UpdateSessionRequest,
} from '@checkout/contracts';
import type { OrdersClient, OrderSnapshot, OrderView } from '../clients/orders.client';
import type { SessionsStore } from '../store/sessions.store';
import type { CollectedInputs, SessionDocument } from '../store/session.document';
import { presentSession } from './session.presenter';
import { sessionEventMessage } from './session-event';
import { effectiveStatus, extendedExpiry, isDue, mergeSessionData, settle } from './session';

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
  | { source: 'simulator'; paymentId?: string; method: PaymentMethod; amount?: number; outcome: 'succeeded' | 'declined'; cardLast4?: string }
  | { source: 'processor'; paymentId: string; method: PaymentMethod; amount: number; capturedAt: Date };

export type PaymentResult = 'succeeded' | 'declined';

export interface SessionWithOrder {
  doc: SessionDocument;
  order: OrderView;
}

/** A change of the order sessions learned from orders' events (flow 5): the snapshot, or null for a legacy event. */
export interface OrderChange {
  orderId: string;
  snapshot: OrderSnapshot | null;
}

type Change = (current: { doc: SessionDocument; order: OrderView; now: Date; caughtUp: SessionDocument['status'] | null }) => SessionDocument | null;

/**
 * The session use cases. A session carries its own copy of its order (orderJson, orderRevision): reads present
 * it and never call orders; it is replaced by any newer snapshot, from the answers of sessions' own calls to
 * orders and from orders' events. Every write of a session is one conditional update (transition), and each
 * first lets the stored status catch up with the facts (order completed or cancelled, expiresAt passed) via
 * settle(), firing the event that transition owes. Whoever writes a transition first writes its event with it
 * (one document write, then the outbox relay publishes); a writer that loses re-reads and finds it done.
 */
export class SessionCommands {
  constructor(private readonly deps: SessionCommandsDeps) {}

  present(view: SessionWithOrder): CheckoutSession {
    return presentSession(view.doc, view.order, this.deps.clock(), this.deps.checkoutBaseUrl);
  }

  /** GET session: one read of the session; the order is its copy (no call to orders). */
  async get(scope: Scope, id: string): Promise<SessionWithOrder> {
    const doc = await this.deps.store.getSession(scope, id);
    if (!doc) throw notFound(id);
    return this.withOrder(scope, doc);
  }

  /** D47: a page of sessions, newest first, each with its order copy (the dashboard's list). */
  async list(scope: Scope, page: number, limit: number): Promise<{ views: SessionWithOrder[]; total: number }> {
    const { sessions, total } = await this.deps.store.listSessions(scope, page, limit);
    return { views: await Promise.all(sessions.map((doc) => this.withOrder(scope, doc))), total };
  }

  /** The hosted page and processor notifications know only the session id; the tenant comes from the session. */
  async findPublic(id: string): Promise<SessionWithOrder | null> {
    const doc = await this.deps.store.findByIdAcrossTenants(id);
    if (!doc) return null;
    return this.withOrder(scopeOf(doc), doc);
  }

  /** D23: extendExpiry while pending (7-day lifetime cap); sessionData merged shallowly in any status. */
  async update(scope: Scope, id: string, patch: UpdateSessionRequest): Promise<SessionWithOrder> {
    return this.transition(scope, id, null, null, null, ({ doc, now }) => {
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
    const closed = doc.status === 'pending' ? await this.deps.orders.closePayments(scope, doc.orderId) : null;
    return this.transition(scope, id, doc, closed, null, ({ doc: current, order: latest, now, caughtUp }) => {
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
    const { order } = await this.withOrder(scope, found);
    if (effectiveStatus(found.status, order.status, found.expiresAt, this.deps.clock()) !== 'pending') {
      // Not pending: let the stored status catch up (with its event), then refuse.
      await this.transition(scope, id, found, null, null, null);
      throw notPayable(effectiveStatus(found.status, order.status, found.expiresAt, this.deps.clock()));
    }
    const patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } } = {};
    if (inputs.shippingAddress) patch.shippingAddress = inputs.shippingAddress;
    // An order's customer needs an email; without a customer the phone stays on the session only.
    if (inputs.phone && order.customer) patch.customer = { phone: inputs.phone };
    // The order is updated first (no session state is held across the call); the session then records the
    // inputs, and orders' answer, if it is still pending.
    const updated = Object.keys(patch).length > 0 ? await this.deps.orders.update(scope, found.orderId, patch) : null;
    return this.transition(scope, id, found, updated, null, ({ doc, now }) => {
      if (doc.status !== 'pending') throw notPayable(doc.status);
      return { ...doc, collected: { ...doc.collected, ...inputs }, updatedAt: now };
    });
  }

  /**
   * Flow 3, the one path every payment takes (D27): simulated in test mode, reported by the processor in live
   * mode. Catch up with the facts and refuse a session that is not pending (exact expiry, D21). A declined
   * attempt is a counter on the session. Otherwise orders decides, and stores the payment (the only place a
   * payment is stored): it applies a payment at most once by its id, to an open order whose checkout has not
   * expired, in one conditional update (so pay against cancel, against expire, and two full payments are
   * decided there), and writes its order event with it. Then the session stores orders' answer and, if the
   * order completed, `completed` with its event, by one conditional update. Nothing is locked meanwhile; if
   * this process dies between the two, orders' event completes the session (onOrderChanged). The session event
   * is published before this returns, so a redirect follows it.
   * `found`: the session as the caller just read it (the hosted page, a processor notification), saving a read.
   */
  async pay(scope: Scope, id: string, attempt: PaymentAttempt, found?: SessionDocument): Promise<{ view: SessionWithOrder; result: PaymentResult }> {
    const { store, orders } = this.deps;
    const read = found ?? (await store.getSession(scope, id));
    if (!read) throw notFound(id);
    const now = this.deps.clock();
    // A processor reports a capture that happened at capturedAt; it counts as paid then (never later than now).
    const acceptAt = attempt.source === 'processor' && attempt.capturedAt < now ? attempt.capturedAt : now;
    const { doc, order } = await this.transition(scope, id, read, null, acceptAt, null);

    if (doc.status !== 'pending') {
      // A replay of a payment already applied (a processor's repeated notification, a retried request with the
      // same Idempotency-Key): orders recognises its id (D27) and the answer is the session as it is. Any other
      // payment of a settled session is refused, by orders. A payment without an id of its own cannot be a replay.
      if (attempt.paymentId === undefined || (attempt.source === 'simulator' && attempt.outcome === 'declined')) throw notPayable(doc.status);
      const replay = await this.applyOrRefuse(scope, doc, {
        paymentId: attempt.paymentId,
        method: attempt.method,
        ...(attempt.amount !== undefined && { amount: attempt.amount }),
      });
      return { view: await this.transition(scope, id, doc, replay, null, null), result: 'succeeded' };
    }

    if (attempt.source === 'simulator' && attempt.outcome === 'declined') {
      const counted = await store.countDeclined(scope, id, now);
      if (!counted) throw notPayable((await store.getSession(scope, id))?.status ?? 'gone');
      return { view: { doc: counted, order }, result: 'declined' };
    }

    const payment =
      attempt.source === 'processor'
        ? { paymentId: attempt.paymentId, amount: attempt.amount, method: attempt.method }
        : { paymentId: attempt.paymentId ?? newId('pay', scope.mode), method: attempt.method, ...(attempt.amount !== undefined && { amount: attempt.amount }) };
    const applied = await this.applyOrRefuse(scope, doc, payment);
    const view = await this.transition(scope, id, doc, applied, acceptAt, null);
    return { view, result: 'succeeded' };
  }

  /**
   * Flow 5: orders changed an order (applied a payment, completed, cancelled, updated or closed it). A newer
   * snapshot replaces the session's copy, and the stored status catches up with it exactly as on any write: a
   * completed order completes a pending session with its event (also when this process died after orders applied
   * the payment and before storing it), a cancelled one cancels it (D25, no event). An older or repeated event
   * finds nothing to do: one read, no write. A legacy event without a snapshot looks the order up.
   */
  async onOrderChanged(scope: Scope, change: OrderChange): Promise<void> {
    const found = await this.deps.store.findByOrderId(scope, change.orderId);
    if (!found) return;
    const snapshot = change.snapshot ?? (await this.deps.orders.get(scope, change.orderId));
    await this.catchUpWithOrder(scope, found, snapshot);
  }

  /**
   * D46: a merchant's cancel or edit of a session's order is in the session before the merchant is answered: the
   * gateway hands the session orders' answer (the order and its revision) here, and waits. The same catch-up as
   * an order event, which stays the at-least-once path for the same change; whichever comes second finds
   * nothing newer (one read, no write).
   */
  async takeOrderSnapshot(scope: Scope, sessionId: string, snapshot: OrderSnapshot): Promise<void> {
    const found = await this.deps.store.getSession(scope, sessionId);
    if (!found || found.orderId !== snapshot.order.id) throw notFound(sessionId);
    await this.catchUpWithOrder(scope, found, snapshot);
  }

  /**
   * Stores a newer snapshot, and what the status owes once it is known (cancelled, completed), in one write. A
   * higher revision that shows the same order (orders' outbox relay bumps the revision when it marks an event
   * sent) is not worth a write: the copy already shows it.
   */
  private async catchUpWithOrder(scope: Scope, found: SessionDocument, snapshot: OrderSnapshot): Promise<void> {
    const stored = storedSnapshot(found);
    const newer = stored === null || (snapshot.revision > stored.revision && JSON.stringify(snapshot.order) !== found.orderJson);
    const owed = stored !== null && found.status === 'pending' && stored.order.status !== 'open';
    if (!newer && !owed) return;
    await this.transition(scope, found._id, found, snapshot, null, null);
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
        const { written } = await this.transition(scopeOf(candidate), candidate._id, candidate, null, null, null);
        if (written) changed += 1;
      } catch (err) {
        this.deps.logger.warn({ err, sessionId: candidate._id }, 'expiry sweep of a session failed; next sweep retries');
      }
    }
    return changed;
  }

  /**
   * Asks orders to apply a payment. A refusal (the order was cancelled, completed or closed by an expiry
   * meanwhile: D25, D21) is passed on after the session caught up with the order as orders has it now: the
   * one place a payment path asks orders for the order, since a refusal carries none. Orders refuses with its
   * own ORDER_NOT_PAYABLE; the session's callers get SESSION_NOT_PAYABLE (D29), whatever orders' reason.
   */
  private async applyOrRefuse(scope: Scope, doc: SessionDocument, payment: { paymentId: string; amount?: number; method: PaymentMethod }): Promise<OrderSnapshot & { outcome: 'applied' | 'already_applied' }> {
    try {
      return await this.deps.orders.applyPayment(scope, doc.orderId, payment);
    } catch (err) {
      // SESSION_NOT_PAYABLE is what orders answered before issue 25.4: an older orders may still answer it
      // during a rolling deploy (deploy sessions first: an older sessions does not know ORDER_NOT_PAYABLE).
      if (isDomainError(err) && (err.code === 'ORDER_NOT_PAYABLE' || err.code === 'SESSION_NOT_PAYABLE')) {
        const latest = await this.deps.orders.get(scope, doc.orderId);
        const { doc: settled } = await this.transition(scope, doc._id, null, latest, null, null);
        if (settled.status !== 'pending') throw notPayable(settled.status);
        throw new DomainError('SESSION_NOT_PAYABLE', err.message, { cause: err });
      }
      throw err;
    }
  }

  /** The session with its copy of the order; a session stored before copies existed gets one now (once). */
  private async withOrder(scope: Scope, doc: SessionDocument): Promise<SessionWithOrder> {
    const stored = storedSnapshot(doc);
    if (stored) return { doc, order: stored.order };
    const { doc: filled, order } = await this.transition(scope, doc._id, doc, null, null, null);
    return { doc: filled, order };
  }

  /**
   * The one way a session is written (apart from countDeclined's $inc): a newer order snapshot (`incoming`),
   * what the facts owe (catch-up, see owed) and what `change` asks, stored together by one conditional update
   * (the revision read is the expected state). Losing that race re-reads the session and decides again, so
   * nothing is ever locked. `change` gets the session after catch-up and returns its next version, or null for
   * no change; if it throws, the catch-up alone is still written (it owes its event) before the error is passed
   * on. `start` is the session just read; `at` the instant the facts are judged at (default: now).
   */
  private async transition(
    scope: Scope,
    id: string,
    start: SessionDocument | null,
    incoming: OrderSnapshot | null,
    at: Date | null,
    change: Change | null,
  ): Promise<SessionWithOrder & { written: boolean }> {
    let current = start;
    let latest = incoming;
    for (let attempt = 1; ; attempt += 1) {
      if (!current) {
        current = await this.deps.store.getSession(scope, id);
        if (!current) throw notFound(id);
      }
      // Only a session stored before copies existed has none; it is filled from orders once.
      if (!latest && !storedSnapshot(current)) latest = await this.deps.orders.get(scope, current.orderId);
      const viewed = withNewer(current, latest);
      const now = this.deps.clock();
      const caughtUp = await this.owed(scope, viewed, at ?? now, now);
      const base = caughtUp ?? viewed;
      const order = orderOf(base);
      let next: SessionDocument | null = null;
      let refusal: unknown;
      let refused = false;
      try {
        next = change ? change({ doc: base, order, now, caughtUp: caughtUp ? caughtUp.status : null }) : null;
      } catch (err) {
        refusal = err;
        refused = true;
      }
      const final = next ?? (base !== current ? base : null);
      if (final === null) {
        if (refused) throw refusal;
        return { doc: current, order, written: false };
      }
      const stored = await this.deps.store.replaceSession(scope, current, final);
      if (stored) {
        if (stored.outboxPending) await this.publish(stored);
        if (refused) throw refusal;
        return { doc: stored, order: orderOf(stored), written: true };
      }
      if (attempt >= MAX_TRANSITION_ATTEMPTS) throw new DependencyUnavailableError(`session ${id}: ${attempt} concurrent writes in a row`);
      // The snapshot in hand stays: the re-read session keeps whichever of the two is newer.
      if (caughtUp) latest = newerOf(latest, storedSnapshot(caughtUp));
      current = null;
    }
  }

  /**
   * The session as the facts owe it at `at` (see settle), with its event; null when nothing is owed. Before a
   * session is stored as expired, orders closes the order to payments: if a payment got there first, the
   * order's answer says completed and the session completes instead (D21, D27).
   */
  private async owed(scope: Scope, doc: SessionDocument, at: Date, now: Date): Promise<SessionDocument | null> {
    let latest = doc;
    let transition = settle(doc.status, orderOf(latest).status as OrderStatus, doc.expiresAt, at);
    if (transition?.status === 'expired') {
      latest = withNewer(doc, await this.deps.orders.closePayments(scope, doc.orderId));
      transition = settle(doc.status, orderOf(latest).status as OrderStatus, doc.expiresAt, at);
    }
    if (!transition) return latest === doc ? null : latest;
    const next: SessionDocument = { ...latest, status: transition.status, updatedAt: now };
    return transition.event === null ? next : this.withEvent(next, orderOf(next), transition.event, now);
  }

  /** Appends the session event (a SessionEventV1 envelope, parsed before it is stored) to the document's outbox. */
  private withEvent(doc: SessionDocument, order: OrderView, kind: 'completed' | 'expired', now: Date): SessionDocument {
    const envelope = sessionEventMessage(doc, order, kind, now, this.deps.checkoutBaseUrl);
    return appendToOutbox(doc, { eventId: envelope.eventId, topic: this.deps.sessionEventsTopic, key: doc._id, value: JSON.stringify(envelope), createdAt: now });
  }

  /**
   * Flow 3: wait until the event is on Kafka, publishing from the document just written (no read back). If the
   * broker is down the relay's sweep publishes it later.
   */
  private async publish(doc: SessionDocument): Promise<void> {
    try {
      await this.deps.relay.publishWritten(doc);
    } catch (err) {
      this.deps.logger.warn({ err, sessionId: doc._id }, 'publishing a session event failed; the outbox sweep will retry');
    }
  }
}

/** The session's copy of its order, or null on a session stored before copies existed. */
export function storedSnapshot(doc: SessionDocument): OrderSnapshot | null {
  if (doc.orderJson === undefined || doc.orderRevision === undefined) return null;
  return { order: JSON.parse(doc.orderJson) as OrderView, revision: doc.orderRevision };
}

/** The fields that store `snapshot` as a session's copy of its order. */
export function snapshotFields(snapshot: OrderSnapshot): Pick<SessionDocument, 'orderJson' | 'orderRevision'> {
  return { orderJson: JSON.stringify(snapshot.order), orderRevision: snapshot.revision };
}

function orderOf(doc: SessionDocument): OrderView {
  const stored = storedSnapshot(doc);
  if (!stored) throw new Error(`session ${doc._id} has no copy of its order`);
  return stored.order;
}

/** `doc` with `snapshot` as its copy if that is newer than the one it has; `doc` itself otherwise. */
function withNewer(doc: SessionDocument, snapshot: OrderSnapshot | null): SessionDocument {
  if (!snapshot) return doc;
  if (doc.orderRevision !== undefined && doc.orderJson !== undefined && snapshot.revision <= doc.orderRevision) return doc;
  return { ...doc, ...snapshotFields(snapshot) };
}

function newerOf(a: OrderSnapshot | null, b: OrderSnapshot | null): OrderSnapshot | null {
  if (!a) return b;
  if (!b) return a;
  return b.revision > a.revision ? b : a;
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
