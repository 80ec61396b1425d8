import type { Logger } from '@checkout/logger';
import { DependencyUnavailableError, DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { appendToOutbox, type OutboxRelay } from '@checkout/kafka';
import type { OrderStatus, SessionStatus } from '@checkout/contracts';
import type { OrdersClient, OrderSnapshot, OrderView } from '../clients/orders.client';
import type { SessionsStore } from '../store/sessions.store';
import type { SessionDocument } from '../store/session.document';
import { sessionEventMessage } from './session-event';
import { settle } from './session';

/** Each lost race means another writer succeeded, so the loop ends; the bound only guards against a bug. */
const MAX_TRANSITION_ATTEMPTS = 100;

/** What every write of a session needs: its store, orders (for the catch-up), and the relay of its events. */
export interface SessionDeps {
  store: SessionsStore;
  orders: OrdersClient;
  relay: OutboxRelay<SessionDocument>;
  sessionEventsTopic: string;
  checkoutBaseUrl: string;
  clock: () => Date;
  logger: Logger;
}

export interface SessionWithOrder {
  doc: SessionDocument;
  order: OrderView;
}

/**
 * A caller's own change of a session, given the session after the catch-up (`caughtUpTo`: the status the
 * catch-up just stored, if any). Returns the next version, or null for no change; may throw to refuse.
 */
export type SessionChange = (current: {
  doc: SessionDocument;
  order: OrderView;
  now: Date;
  caughtUpTo: SessionStatus | null;
}) => SessionDocument | null;

/** One write of a session, as its callers name it. */
export interface SessionTransition {
  scope: Scope;
  sessionId: string;
  /** The session as the caller just read or wrote it (saves a read); absent: it is read here. */
  read?: SessionDocument | undefined;
  /** Orders' answer or event about the order: replaces the session's copy if its revision is newer. */
  newerOrder?: OrderSnapshot | undefined;
  /** The instant the facts are judged at (a processor's capture time); default: now. */
  judgedAt?: Date | undefined;
  /** The caller's change, after the catch-up; none: only the catch-up is written, if anything is owed. */
  change?: SessionChange | undefined;
}

/**
 * The one way a session is written (apart from countDeclined's $inc): a newer order copy, what the facts owe
 * (catchUpClosingPaymentsOnExpiry) and what `change` asks, stored together by one conditional update (the
 * revision read is the expected state), then its events published before this returns. Losing that race
 * re-reads the session and decides again, so nothing is ever locked. If `change` throws, the catch-up alone is
 * still written (it owes its event) before the error is passed on.
 */
export async function transitionSession(
  deps: SessionDeps,
  request: SessionTransition,
): Promise<SessionWithOrder & { written: boolean }> {
  const { scope, sessionId, change } = request;
  let current = request.read ?? null;
  let newerOrder = request.newerOrder ?? null;
  for (let attempt = 1; ; attempt += 1) {
    if (!current) {
      current = await deps.store.getSession(scope, sessionId);
      if (!current) throw sessionNotFound(sessionId);
    }
    const viewed = newerOrder ? withNewerOrder(current, newerOrder) : current;
    const now = deps.clock();
    const caughtUp = await catchUpClosingPaymentsOnExpiry(deps, scope, viewed, request.judgedAt ?? now, now);
    const base = caughtUp.doc;
    let next: SessionDocument | null = null;
    let refusal: unknown;
    let refused = false;
    try {
      next = change ? change({ doc: base, order: caughtUp.order, now, caughtUpTo: caughtUp.settledTo }) : null;
    } catch (err) {
      refusal = err;
      refused = true;
    }
    const final = next ?? (base !== current ? base : null);
    if (final === null) {
      if (refused) throw refusal;
      return { doc: current, order: caughtUp.order, written: false };
    }
    const stored = await deps.store.replaceSession(scope, current, final);
    if (stored) {
      if (stored.outboxPending) await publishStored(deps, stored);
      if (refused) throw refusal;
      return {
        doc: stored,
        order: stored.orderJson === base.orderJson ? caughtUp.order : orderOf(stored),
        written: true,
      };
    }
    if (attempt >= MAX_TRANSITION_ATTEMPTS)
      throw new DependencyUnavailableError(`session ${sessionId}: ${attempt} concurrent writes in a row`);
    // The order copy in hand stays: the re-read session keeps whichever of the two is newer.
    if (base !== viewed) newerOrder = newerOf(newerOrder, { order: caughtUp.order, revision: base.orderRevision });
    current = null;
  }
}

/**
 * The session as the facts owe it at `at` (settle): its order completed or cancelled it, or its expiresAt
 * passed; with the event that change fires. Calls orders before an expiry: orders closes the order to
 * payments, and if a payment got there first its answer says completed and the session completes instead
 * (D21, D27). `doc` itself (settledTo null) when nothing is owed.
 */
async function catchUpClosingPaymentsOnExpiry(
  deps: SessionDeps,
  scope: Scope,
  doc: SessionDocument,
  at: Date,
  now: Date,
): Promise<SessionWithOrder & { settledTo: Exclude<SessionStatus, 'pending'> | null }> {
  let latest = doc;
  let order = orderOf(doc);
  let owed = settle(doc.status, order.status as OrderStatus, doc.expiresAt, at);
  if (owed?.status === 'expired') {
    latest = withNewerOrder(doc, await deps.orders.closePayments(scope, doc.orderId));
    if (latest !== doc) order = orderOf(latest);
    owed = settle(doc.status, order.status as OrderStatus, doc.expiresAt, at);
  }
  if (!owed) return { doc: latest, order, settledTo: null };
  const next: SessionDocument = { ...latest, status: owed.status, updatedAt: now };
  return {
    doc: owed.event === null ? next : withSessionEvent(deps, next, order, owed.event, now),
    order,
    settledTo: owed.status,
  };
}

/** Appends the session event (a SessionEventV1 envelope, parsed before it is stored) to the document's outbox. */
export function withSessionEvent(
  deps: SessionDeps,
  doc: SessionDocument,
  order: OrderView,
  kind: 'completed' | 'expired',
  now: Date,
): SessionDocument {
  const envelope = sessionEventMessage(doc, order, kind, now, deps.checkoutBaseUrl);
  return appendToOutbox(doc, {
    eventId: envelope.eventId,
    topic: deps.sessionEventsTopic,
    key: doc._id,
    value: JSON.stringify(envelope),
    createdAt: now,
  });
}

/**
 * Flow 3: wait until the events are on Kafka, publishing from the document just written (no read back). If the
 * broker is down the relay's sweep publishes them later.
 */
async function publishStored(deps: SessionDeps, doc: SessionDocument): Promise<void> {
  try {
    await deps.relay.publishWritten(doc);
  } catch (err) {
    deps.logger.warn({ err, sessionId: doc._id }, 'publishing a session event failed; the outbox sweep will retry');
  }
}

/** The session's copy of its order (set at creation, replaced by newer answers and events). */
export function orderOf(doc: SessionDocument): OrderView {
  return JSON.parse(doc.orderJson) as OrderView;
}

/** The fields that store `snapshot` as a session's copy of its order. */
export function snapshotFields(snapshot: OrderSnapshot): Pick<SessionDocument, 'orderJson' | 'orderRevision'> {
  return { orderJson: JSON.stringify(snapshot.order), orderRevision: snapshot.revision };
}

/** `doc` with `snapshot` as its copy if that is newer than the one it has; `doc` itself otherwise. */
function withNewerOrder(doc: SessionDocument, snapshot: OrderSnapshot): SessionDocument {
  if (snapshot.revision <= doc.orderRevision) return doc;
  return { ...doc, ...snapshotFields(snapshot) };
}

function newerOf(a: OrderSnapshot | null, b: OrderSnapshot): OrderSnapshot {
  return a && a.revision >= b.revision ? a : b;
}

export function scopeOf(doc: { organizationId: string; mode: Scope['mode'] }): Scope {
  return { organizationId: doc.organizationId, mode: doc.mode };
}

export function sessionNotFound(id: string): DomainError {
  return new DomainError('SESSION_NOT_FOUND', `No checkout session ${id} exists.`);
}

export function sessionNotPayable(status: string): DomainError {
  return new DomainError('SESSION_NOT_PAYABLE', `The session is ${status}; it accepts no payment.`);
}
