import { DomainError, isDomainError } from '@checkout/errors';
import { newId, type PaymentMethod } from '@checkout/contracts';
import type { SessionDocument } from '../store/session.document';
import {
  orderOf,
  scopeOf,
  sessionNotPayable,
  settleSession,
  type SessionDeps,
  type SessionWithOrder,
} from './session-writes';
import { owedStatus } from './session';

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
type PaymentResult = 'succeeded' | 'replayed' | 'declined';

export interface PaidSession {
  view: SessionWithOrder;
  result: PaymentResult;
}

/**
 * Flow 3, paying a session: the one path every payment takes (D27), simulated in test mode, reported by the
 * processor in live mode. `read` is the session as the caller just read it. Nothing is locked; each step is one
 * call to orders or one named write (settleSession), and none is repeated around a call.
 *
 * 1. Catch up: if the facts owe the session a status at the payment's instant (a processor's capture counts at
 *    capturedAt, D21's exact expiry), it is stored first, with its event; an expiry asks orders to close the
 *    order to payments first, so a payment that reached orders before it wins.
 * 2. Not pending: only a replay can still be answered (orders recognises a payment id it applied, D27, so asking
 *    it again is how a replay is told apart); a payment without an id of its own, or a decline, is refused.
 * 3. A simulated decline is a counter on the session (one $inc), nothing more.
 * 4. Apply at orders: orders applies a payment at most once by its id, to an open order whose checkout has not
 *    expired, in one conditional update that also writes its order event; it is the only store of payments. A
 *    refusal (cancelled, completed or closed meanwhile: D25, D21) is answered SESSION_NOT_PAYABLE (D29), once
 *    the session has caught up with the order as orders has it now.
 * 5. Store orders' answer: a completed order completes the session with its `checkout.session.completed`, on
 *    Kafka before this returns, so a redirect follows it; a partial payment is a newer order copy. If this
 *    process dies between 4 and 5, orders' event completes the session instead (SessionCommands.onOrderChanged).
 */
export async function paySession(
  deps: SessionDeps,
  read: SessionDocument,
  attempt: PaymentAttempt,
): Promise<PaidSession> {
  const now = deps.clock();
  const at = attempt.source === 'processor' && attempt.capturedAt < now ? attempt.capturedAt : now;
  const declined = attempt.source === 'simulator' && attempt.outcome === 'declined';

  const owed = owedStatus(read.status, orderOf(read).status, read.expiresAt, at);
  const current = owed ? (await settleSession(deps, read, { at })).doc : read;
  if (current.status !== 'pending' && (attempt.paymentId === undefined || declined))
    throw sessionNotPayable(current.status);

  if (declined) {
    const counted = await deps.store.countDeclined(scopeOf(current), current._id, now);
    if (!counted) throw sessionNotPayable('no longer pending');
    return { view: { doc: counted, order: orderOf(counted) }, result: 'declined' };
  }

  const scope = scopeOf(current);
  const payment = {
    paymentId: attempt.paymentId ?? newId('pay', scope.mode),
    method: attempt.method,
    ...(attempt.amount !== undefined && { amount: attempt.amount }),
  };
  let answer;
  try {
    answer = await deps.orders.applyPayment(scope, current.orderId, payment);
  } catch (err) {
    if (!isDomainError(err) || err.code !== 'ORDER_NOT_PAYABLE') throw err;
    // The one place a payment asks orders for the order: a refusal carries none.
    const settled = await settleSession(deps, current, { at, answer: await deps.orders.get(scope, current.orderId) });
    if (settled.doc.status !== 'pending') throw sessionNotPayable(settled.doc.status);
    throw new DomainError('SESSION_NOT_PAYABLE', err.message, { cause: err });
  }
  const stored = await settleSession(deps, current, { at, answer });
  return { view: stored, result: answer.outcome === 'applied' ? 'succeeded' : 'replayed' };
}
