import { randomBytes } from 'node:crypto';
import { DomainError } from '@checkout/errors';
import { formatAmount } from '@checkout/html';
import { REFUND_REASONS, type RefundReason } from '@checkout/contracts';
import { refundOrder } from '../../domain/dashboard-reads';
import { refundAmountFromForm } from '../../domain/dashboard-views';
import { confirmPage } from './layout';
import { idParam, one, pageCtx, requestId, respond, scopeOf, seeOther, verifiedForm, type MountSection } from './kit';
import { withinBudget } from './kit';

/** The Refund form's fields, checked before the confirm page and again when it is sent. */
function refundForm(values: { amount?: string | undefined; reason?: string | undefined }): {
  amount: number | undefined;
  reason: RefundReason | undefined;
} {
  const amount = refundAmountFromForm(values.amount);
  if (amount === null)
    throw new DomainError(
      'REFUND_FAILED',
      'Give the amount to refund like 12.50, or leave it empty to refund all that is refundable.',
    );
  const reason = values.reason === undefined || values.reason === '' ? undefined : values.reason;
  if (reason !== undefined && !(REFUND_REASONS as readonly string[]).includes(reason))
    throw new DomainError('REFUND_FAILED', `The reason must be one of ${REFUND_REASONS.join(', ')}.`);
  return { amount, reason: reason as RefundReason | undefined };
}

/**
 * D48 on the order page (D47): the Refund form leads to a confirm page, whose POST carries the session's CSRF token
 * and a one-time key (a form sent twice makes one refund). The refund goes through orders' one conditional write,
 * and its order to the order's checkout session before the page answers (D46), as an API refund's does.
 */
export const mountRefundPages: MountSection = (pages, deps, session) => {
  pages.get('/orders/:orderId/refund', session, async (ctx) => {
    const id = idParam('ord', ctx.params.orderId);
    const { amount, reason } = refundForm({ amount: one(ctx.query.amount), reason: one(ctx.query.reason) });
    // Read first, so another organization's id is "not found" here already, not only after confirming.
    const { order } = await deps.upstreams.orders.getOrder(scopeOf(ctx), requestId(ctx), id);
    const what = amount === undefined ? 'all that is refundable' : formatAmount(amount, order.currency);
    const why = reason ? ` (${reason.replace(/_/g, ' ')})` : '';
    respond(
      ctx,
      confirmPage(
        pageCtx(ctx, 'orders'),
        'Refund this order?',
        `Refund ${what} of order ${id}${why}. The money goes back to the customer; this cannot be undone (D48).`,
        `/dashboard/orders/${id}/refund`,
        {
          ...(amount !== undefined && { amount: String(amount) }),
          ...(reason !== undefined && { reason }),
          key: randomBytes(18).toString('base64url'),
        },
        `/dashboard/orders/${id}`,
        'Yes, refund',
      ),
    );
  });

  pages.post('/orders/:orderId/refund', session, withinBudget(deps), async (ctx) => {
    const form = await verifiedForm(ctx);
    const id = idParam('ord', ctx.params.orderId);
    const cents = form.get('amount') ?? undefined;
    if (cents !== undefined && !/^[1-9]\d{0,14}$/.test(cents))
      throw new DomainError('REFUND_FAILED', 'The amount to refund is not valid; start again from the order page.');
    const reason = refundForm({ reason: form.get('reason') ?? undefined }).reason;
    const key = form.get('key') ?? '';
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(key))
      throw new DomainError('REFUND_FAILED', 'This form is incomplete; start again from the order page.');
    await refundOrder(deps.upstreams, scopeOf(ctx), requestId(ctx), id, {
      body: { ...(cents !== undefined && { amount: Number(cents) }), ...(reason !== undefined && { reason }) },
      formKey: key,
    });
    seeOther(ctx, `/dashboard/orders/${id}?m=refunded`);
  });
};
