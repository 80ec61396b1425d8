import type { Logger } from '@checkout/logger';
import { DependencyUnavailableError, DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import type { OutboxEntry, OutboxRelay } from '@checkout/kafka';
import type { SessionEventStatus, SessionStatus } from '@checkout/contracts';
import type { OrderCopy, Orders, OrderSnapshot, OrderView, Sessions } from './ports';
import type { SessionDocument } from '../store/session.document';
import { sessionEventMessage } from './session-event';
import { owedStatus } from './session';

/** What every write of a session needs: its store, orders (to close payments before an expiry), the relay. */
export interface SessionDeps {
  store: Sessions;
  orders: Orders;
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
 * What settleSession did: `settledAs` is the status its own write moved the session to (null: it stored only a
 * newer order copy, or nothing). A write that lost to another writer's settlement may still store a newer copy on
 * the settled session; the session was not settled by it.
 */
export interface Settled extends SessionWithOrder {
  settledAs: Exclude<SessionStatus, 'pending'> | null;
}

/** What a session is brought in line with. */
export interface Facts {
  /** The instant the facts are judged at: now, or a processor's capture time (D21's exact expiry). */
  at: Date;
  /** Orders' answer or event about the order: becomes the session's copy if newer than the stored one. */
  answer?: OrderSnapshot | undefined;
  /** D29's expire helper: the session is due at `at`, whatever its expiresAt. */
  expireNow?: boolean | undefined;
}

/**
 * Brings the stored session in line with the facts, with one named write (SessionsStore):
 *
 * 1. Ask orders first, if at all: an expiry owed closes the order to payments, and orders' answer decides it
 *    (a payment that reached orders first completes the session instead: D21, D27).
 * 2. Write once what the order copy and the clock owe: complete or expire with the event, which is on Kafka
 *    before this returns (flow 3; the relay's sweep publishes it if the broker is down), cancel (D25, no event),
 *    or only the newer order copy; nothing at all when nothing is owed.
 * 3. Lost: another writer settled the session, or stored a newer order copy, in between. Read what won and
 *    decide once more on it, without asking orders again (its answer is still the newest it gave; an expiry that
 *    only became owed meanwhile is left to the sweep). Mostly the winner did what was owed and nothing is left;
 *    otherwise one more write. Should that lose too, what won is the answer, and anything still owed is written by
 *    the writer that comes next (the order event, the sweep), as any settlement can be.
 */
export async function settleSession(deps: SessionDeps, read: SessionDocument, facts: Facts): Promise<Settled> {
  let answer = facts.answer;
  const closing = owes(read, newerCopy(read, answer)?.order ?? orderOf(read), facts) === 'expired';
  if (closing) answer = newest(answer, await deps.orders.closePayments(scopeOf(read), read.orderId));
  const first = await writeOwed(deps, read, answer, facts, closing);
  if (first) return withEventPublished(deps, first);
  const second = await writeOwed(deps, await reread(deps, read), answer, facts, closing);
  if (second) return withEventPublished(deps, second);
  const won = await reread(deps, read);
  return withEventPublished(deps, { doc: won, order: orderOf(won), settledAs: null });
}

/**
 * Flow 3 for a session another writer settled: its event may still be in the outbox (that writer's publish is in
 * flight, say the order-events consumer's after it won the race with a payment's own write, or it crashed), and this
 * caller too answers only once the event is on Kafka. In this process the publish in flight is joined; one in another
 * replica is sent again, and consumers deduplicate on the event id.
 */
async function withEventPublished(deps: SessionDeps, settled: Settled): Promise<Settled> {
  if (settled.settledAs === null && settled.doc.outbox.length > 0) await publish(deps, settled.doc);
  return settled;
}

/** Attempts of a change merged into the session as read (PATCH, the hosted page's inputs) before a 503. */
const MERGE_ATTEMPTS = 5;

/**
 * A change merged into the session as read (sessionData, an extension, collected inputs), written over exactly
 * that by `write` (a named write; null: another writer changed the session in between). Each lost write is merged
 * again into what won: local writes only, never a call to another service. Each loss means another write of this
 * session landed, so the bound only turns a storm of concurrent writers into a 503 that the caller may retry.
 */
export async function mergeIntoSession<T>(
  deps: SessionDeps,
  read: SessionDocument,
  write: (current: SessionDocument) => Promise<T | null>,
): Promise<T> {
  let current = read;
  for (let attempt = 1; attempt <= MERGE_ATTEMPTS; attempt += 1) {
    const written = await write(current);
    if (written !== null) return written;
    current = await reread(deps, current);
  }
  throw new DependencyUnavailableError(`session ${read._id}: ${MERGE_ATTEMPTS} concurrent writes in a row`);
}

async function reread(deps: SessionDeps, read: SessionDocument): Promise<SessionDocument> {
  const won = await deps.store.getSession(scopeOf(read), read._id);
  if (!won) throw sessionNotFound(read._id);
  return won;
}

/** The named write `doc` owes, made; `doc` itself when it owes none; null when another writer got there first. */
async function writeOwed(
  deps: SessionDeps,
  doc: SessionDocument,
  answer: OrderSnapshot | undefined,
  facts: Facts,
  closed: boolean,
): Promise<Settled | null> {
  const scope = scopeOf(doc);
  const newer = newerCopy(doc, answer);
  const order = newer?.order ?? orderOf(doc);
  const copy = newer && copyFields(newer);
  const now = deps.clock();
  let status = owes(doc, order, facts);
  if (status === 'expired' && !closed) status = null;
  let written: SessionDocument | null;
  if (status === 'completed' || status === 'expired') {
    const expiresAt = facts.expireNow && now < doc.expiresAt ? now : doc.expiresAt;
    const event = eventEntry(deps, { ...doc, ...copy, status, expiresAt, updatedAt: now }, order, status, now);
    written =
      status === 'completed'
        ? await deps.store.complete(scope, doc, { copy, event, now })
        : await deps.store.expire(scope, doc, { copy, expiresAt, event, now });
    if (written) await publish(deps, written);
  } else if (status === 'cancelled') {
    written = await deps.store.cancel(scope, doc, { copy, now });
  } else if (copy) {
    written = await deps.store.takeOrderCopy(scope, doc._id, copy, order.status !== 'open');
  } else {
    return { doc, order, settledAs: null };
  }
  return written && { doc: written, order, settledAs: status };
}

/** The status `doc` owes with `order` as its copy, at the facts' instant (owedStatus); null: none. */
function owes(doc: SessionDocument, order: OrderView, facts: Facts): Exclude<SessionStatus, 'pending'> | null {
  return owedStatus(doc.status, order.status, facts.expireNow ? facts.at : doc.expiresAt, facts.at);
}

/** The session event of `next` (the session as it is written with it) as its outbox entry. */
function eventEntry(
  deps: SessionDeps,
  next: SessionDocument,
  order: OrderView,
  status: SessionEventStatus,
  now: Date,
): OutboxEntry {
  const message = sessionEventMessage(next, order, status, now, deps.checkoutBaseUrl);
  return {
    eventId: message.eventId,
    topic: deps.sessionEventsTopic,
    key: next._id,
    value: JSON.stringify(message),
    createdAt: now,
  };
}

/** Flow 3: the event is on Kafka before the caller answers; if the broker is down, the relay's sweep sends it. */
async function publish(deps: SessionDeps, doc: SessionDocument): Promise<void> {
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
export function copyFields(snapshot: OrderSnapshot): OrderCopy {
  return { orderJson: JSON.stringify(snapshot.order), orderRevision: snapshot.revision };
}

/** Orders' answer, if it is newer than the copy `doc` holds. */
export function newerCopy(doc: SessionDocument, answer: OrderSnapshot | undefined): OrderSnapshot | undefined {
  return answer && answer.revision > doc.orderRevision ? answer : undefined;
}

function newest(a: OrderSnapshot | undefined, b: OrderSnapshot): OrderSnapshot {
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
