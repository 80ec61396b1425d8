import type { Context } from 'koa';
import { DomainError } from '@checkout/errors';
import { INTERNAL_API_HEADERS, isIdOf } from '@checkout/contracts';
import type { OrderDocument } from '../store/order.document';
import { presentOrder } from '../domain/order.presenter';

/**
 * An answer that carries an order: the order, the revision its write stored and, for a session's order, the
 * session's id (D46), so that the gateway hands the session the order before it answers the merchant.
 */
export function answer(ctx: Context, doc: OrderDocument, extra: Record<string, unknown> = {}): void {
  ctx.set(INTERNAL_API_HEADERS.orderRevision, String(doc.revision ?? 0));
  if (doc.checkoutSessionId !== undefined) ctx.set(INTERNAL_API_HEADERS.checkoutSessionId, doc.checkoutSessionId);
  ctx.body = { order: presentOrder(doc), ...extra };
}

export function orderIdParam(value: string | undefined): string {
  if (!isIdOf('ord', value)) throw new DomainError('INVALID_ORDER_ID', `"${value ?? ''}" is not an order id.`);
  return value;
}
