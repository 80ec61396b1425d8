import { DomainError, isDomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { newId, type PaymentMethod } from '@checkout/contracts';
import type { OrderSnapshot } from '../clients/orders.client';
import type { SessionDocument } from '../store/session.document';
import {
  sessionNotFound,
  sessionNotPayable,
  transitionSession,
  type SessionDeps,
  type SessionWithOrder,
} from './session-transition';

/** A payment attempt, from a test simulator (hosted page or test helper) or a live processor notification. */
export type PaymentAttempt =
  | {
      source: 'simulator';
      paymentId?: string;
      method: PaymentMethod;
      amount?: number;
      outcome: 'succeeded' | 'declined';
      cardLast4?: string;
    }
  | { source: 'processor'; paymentId: string; method: PaymentMethod; amount: number; capturedAt: Date };

/**
 * `succeeded`: orders applied the payment now. `replayed`: orders had already applied this payment id (a
 * processor's repeated notification, a retry with the same Idempotency-Key, D27, D42): nothing was done again
 * and the answer is the session as it is. `declined`: a simulated decline, counted on the session.
 */
export type PaymentResult = 'succeeded' | 'replayed' | 'declined';

export interface PaidSession {
  view: SessionWithOrder;
  result: PaymentResult;
}

type OrdersPayment = { paymentId: string; amount?: number; method: PaymentMethod };
type OrdersAnswer = OrderSnapshot & { outcome: 'applied' | 'already_applied' };

/**
 * Flow 3, paying a session: the one path every payment takes (D27), simulated in test mode, reported by the
 * processor in live mode. Nothing is locked; each step is one call or one conditional write.
 *
 * 1. Catch up: the session as the facts owe it at the payment's instant (a processor's capture counts at
 *    capturedAt, D21's exact expiry), stored with its event if it changed: an expiry asks orders to close
 *    the order to payments first, so a payment that reached orders before it wins.
 * 2. Not pending: a replay of a payment orders already applied is answered `replayed`; any other payment
 *    of a settled session is refused (SESSION_NOT_PAYABLE).
 * 3. A simulated decline is a counter on the session (one $inc), nothing more.
 * 4. Apply or refuse at orders: orders applies a payment at most once by its id, to an open order whose
 *    checkout has not expired, in one conditional update that also writes its order event; it is the only
 *    store of payments. A refusal is passed on once the session has caught up with the order as it is.
 * 5. Store the completion with its event: orders' answer becomes the session's order copy and, if the order
 *    completed, the session `completed` with its `checkout.session.completed` event, in one conditional write.
 * 6. Publish: that write's event is on Kafka before this returns, so a redirect follows it. If this process
 *    dies between 4 and 5, orders' event completes the session instead (SessionCommands.onOrderChanged).
 *
 * `found`: the session as the caller just read it (the hosted page, a processor notification), saving a read.
 */
export async function paySession(
  deps: SessionDeps,
  scope: Scope,
  sessionId: string,
  attempt: PaymentAttempt,
  found?: SessionDocument,
): Promise<PaidSession> {
  const read = found ?? (await deps.store.getSession(scope, sessionId));
  if (!read) throw sessionNotFound(sessionId);
  const now = deps.clock();
  const judgedAt = attempt.source === 'processor' && attempt.capturedAt < now ? attempt.capturedAt : now;

  const caughtUp = await transitionSession(deps, { scope, sessionId, read, judgedAt });
  if (caughtUp.doc.status !== 'pending') return answerReplayOrRefuse(deps, scope, caughtUp.doc, attempt);

  if (attempt.source === 'simulator' && attempt.outcome === 'declined') {
    const counted = await deps.store.countDeclined(scope, sessionId, now);
    if (!counted) throw sessionNotPayable((await deps.store.getSession(scope, sessionId))?.status ?? 'gone');
    return { view: { doc: counted, order: caughtUp.order }, result: 'declined' };
  }

  const answer = await applyOrRefuse(deps, scope, caughtUp.doc, paymentFor(scope, attempt));
  const completed = await transitionSession(deps, {
    scope,
    sessionId,
    read: caughtUp.doc,
    newerOrder: answer,
    judgedAt,
  });
  return { view: completed, result: resultOf(answer) };
}

/**
 * Step 2: a settled session. Orders recognises a payment id it applied (D27), so asking it again is how a
 * replay is told apart; its answer is stored if newer. A payment without an id of its own cannot be a replay.
 */
async function answerReplayOrRefuse(
  deps: SessionDeps,
  scope: Scope,
  settled: SessionDocument,
  attempt: PaymentAttempt,
): Promise<PaidSession> {
  if (attempt.paymentId === undefined || (attempt.source === 'simulator' && attempt.outcome === 'declined'))
    throw sessionNotPayable(settled.status);
  const answer = await applyOrRefuse(deps, scope, settled, {
    paymentId: attempt.paymentId,
    method: attempt.method,
    ...(attempt.amount !== undefined && { amount: attempt.amount }),
  });
  const view = await transitionSession(deps, { scope, sessionId: settled._id, read: settled, newerOrder: answer });
  return { view, result: resultOf(answer) };
}

/** What orders is asked to apply: the processor's capture, or a simulated payment with an id of its own. */
function paymentFor(scope: Scope, attempt: PaymentAttempt): OrdersPayment {
  if (attempt.source === 'processor')
    return { paymentId: attempt.paymentId, amount: attempt.amount, method: attempt.method };
  return {
    paymentId: attempt.paymentId ?? newId('pay', scope.mode),
    method: attempt.method,
    ...(attempt.amount !== undefined && { amount: attempt.amount }),
  };
}

function resultOf(answer: OrdersAnswer): PaymentResult {
  return answer.outcome === 'applied' ? 'succeeded' : 'replayed';
}

/**
 * Step 4: asks orders to apply a payment. A refusal (the order was cancelled, completed or closed by an expiry
 * meanwhile: D25, D21) is passed on after the session caught up with the order as orders has it now: the
 * one place a payment path asks orders for the order, since a refusal carries none. Orders refuses with its
 * own ORDER_NOT_PAYABLE; the session's callers get SESSION_NOT_PAYABLE (D29), whatever orders' reason.
 */
async function applyOrRefuse(
  deps: SessionDeps,
  scope: Scope,
  doc: SessionDocument,
  payment: OrdersPayment,
): Promise<OrdersAnswer> {
  try {
    return await deps.orders.applyPayment(scope, doc.orderId, payment);
  } catch (err) {
    // SESSION_NOT_PAYABLE is what orders answered before ORDER_NOT_PAYABLE existed: an older orders may answer it
    // during a rolling deploy (deploy sessions first: an older sessions does not know ORDER_NOT_PAYABLE).
    if (isDomainError(err) && (err.code === 'ORDER_NOT_PAYABLE' || err.code === 'SESSION_NOT_PAYABLE')) {
      const latest = await deps.orders.get(scope, doc.orderId);
      const { doc: settled } = await transitionSession(deps, { scope, sessionId: doc._id, newerOrder: latest });
      if (settled.status !== 'pending') throw sessionNotPayable(settled.status);
      throw new DomainError('SESSION_NOT_PAYABLE', err.message, { cause: err });
    }
    throw err;
  }
}
