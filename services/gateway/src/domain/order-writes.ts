import { DependencyUnavailableError } from '@checkout/errors';
import {
  INTERNAL_API_HEADERS,
  orderRevisionOf,
  type OrderResponse,
  type OrderSnapshot,
  type Scope,
} from '@checkout/contracts';
import type { OwnerAnswer } from './owners';

/** Sessions' side of D46: a session takes a copy of its order (applied only if newer). */
export interface SessionOrderCopies {
  copyOrder(scope: Scope, requestId: string, sessionId: string, snapshot: OrderSnapshot): Promise<void>;
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * D46: orders has written the merchant's change of an order; if a checkout session shows that order, the
 * session takes orders' answer (applied only if newer) before the merchant hears of the change. If sessions
 * cannot, the merchant gets 503 and not a success its next read would contradict: the write stays, and a retry
 * (cancel and an identical PATCH are idempotent; D42 keeps no 5xx) finds it done and copies it again. The
 * order event stays the at-least-once path either way.
 */
export async function copyOrderToSession(
  sessions: SessionOrderCopies,
  scope: Scope,
  requestId: string,
  ordersAnswer: OwnerAnswer,
): Promise<void> {
  const sessionId = single(ordersAnswer.headers[INTERNAL_API_HEADERS.checkoutSessionId]);
  if (sessionId === undefined) return;
  const revision = orderRevisionOf(ordersAnswer.headers);
  if (revision === null)
    throw new DependencyUnavailableError(
      'orders',
      new Error(`orders answered without a valid ${INTERNAL_API_HEADERS.orderRevision}`),
    );
  // Orders' answer to an order write is its OrderResponse; sessions validates the copy it is given.
  const { order } = (ordersAnswer.body ?? {}) as OrderResponse;
  await sessions.copyOrder(scope, requestId, sessionId, { order, revision });
}
