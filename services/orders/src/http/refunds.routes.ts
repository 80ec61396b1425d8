import Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError } from '@checkout/errors';
import { parseOrThrow, requireScope } from '@checkout/http';
import {
  CreateRefundRequest,
  IDEMPOTENCY_KEY_RETENTION_MS,
  INTERNAL_API_HEADERS,
  ListRefundsQuery,
  SettleRefundRequest,
  TestHelperCreateRefundRequest,
  derivedId,
  isIdOf,
  newId,
  type RefundListResponse,
  type RefundResponse,
  type Scope,
} from '@checkout/contracts';
import type { OrderCommands, RefundWrite } from '../domain/orders.use-cases';
import type { RefundInput, RefundOutcome } from '../domain/refund';
import { presentRefund } from '../domain/order.presenter';
import { answer, orderIdParam } from './order-answer';

function refundIdParam(value: string | undefined): string {
  if (!isIdOf('re', value)) throw new DomainError('INVALID_REFUND_ID', `"${value ?? ''}" is not a refund id.`);
  return value;
}

/**
 * D42 for refunds: with an Idempotency-Key (or the gateway's record of a keyless try left unanswered) the refund's id
 * comes from it and from when the key's life began, so a retry after an unknown outcome (a 5xx, a lost answer: the
 * gateway keeps no 5xx) meets the refund the first try made, applied at most once, and a key reused once it expired
 * makes a new refund rather than answer the old one. A gateway of the release before sends no start: the id then
 * comes from the record alone, and a newer gateway's retry of such a try still meets it (`sameAs`, within the key's
 * 24 hours). Not a secret derivation: a refund id is no capability (reading it needs the API key).
 */
function refundIdFor(ctx: Context, scope: Scope, orderId: string): Pick<RefundInput, 'refundId' | 'sameAs'> {
  const record = ctx.get(INTERNAL_API_HEADERS.idempotencyRecord) || undefined;
  if (record === undefined) return { refundId: newId('re', scope.mode) };
  const seed = `refund\n${scope.organizationId}\n${orderId}\n${record}`;
  const byRecord = derivedId('re', scope.mode, seed);
  const since = new Date(ctx.get(INTERNAL_API_HEADERS.idempotencySince));
  if (Number.isNaN(since.getTime())) return { refundId: byRecord };
  return {
    refundId: derivedId('re', scope.mode, `${seed}\n${since.toISOString()}`),
    sameAs: { id: byRecord, notBefore: new Date(since.getTime() - IDEMPOTENCY_KEY_RETENTION_MS) },
  };
}

/** D29 and D48: test helpers exist for test mode only (the gateway answers 404 for a live key too). */
function testScope(state: { scope?: Scope }): Scope {
  const scope = requireScope(state);
  if (scope.mode !== 'test') throw new DomainError('NOT_FOUND', 'No such route.');
  return scope;
}

/** A refund write's answer: `{refund}` for the merchant, with the order and its revision for the gateway (D46). */
function answerRefund(ctx: Context, written: RefundWrite, status = 200): void {
  answer(ctx, written.order, { refund: presentRefund(written.order, written.refund) });
  ctx.status = status;
}

/** Admits a refund with its id (D42: derived from the idempotency record, if any) and answers 201 with it. */
async function createRefund(
  ctx: Context,
  commands: OrderCommands,
  scope: Scope,
  orderId: string,
  request: Omit<RefundInput, 'refundId' | 'sameAs'>,
): Promise<void> {
  answerRefund(
    ctx,
    await commands.createRefund(scope, orderId, { ...refundIdFor(ctx, scope, orderId), ...request }),
    201,
  );
}

/**
 * D48: refunds through the gateway. A refund made through the API is settled by the processor: in test mode the
 * simulator succeeds at once; in live mode it stays pending until the processor's signed notification.
 */
export function refundsRoutes(commands: OrderCommands): Router {
  const router = new Router();

  router.post('/internal/orders/:orderId/refunds', async (ctx) => {
    const scope = requireScope(ctx.state);
    const orderId = orderIdParam(ctx.params.orderId);
    const body = parseOrThrow(CreateRefundRequest, ctx.request.jsonBody ?? {}, 'REFUND_FAILED');
    const outcome: RefundOutcome = scope.mode === 'test' ? 'succeeded' : 'pending';
    await createRefund(ctx, commands, scope, orderId, { ...body, outcome });
  });

  router.get('/internal/orders/:orderId/refunds', async (ctx) => {
    const scope = requireScope(ctx.state);
    const orderId = orderIdParam(ctx.params.orderId);
    const { page, limit } = parseOrThrow(ListRefundsQuery, ctx.query, 'INVALID_REQUEST');
    const { order, refunds, total } = await commands.listRefunds(scope, orderId, page, limit);
    const body: RefundListResponse = {
      refunds: refunds.map((refund) => presentRefund(order, refund)),
      pagination: { page, limit, total, hasMore: page * limit < total },
    };
    ctx.body = body;
  });

  router.get('/internal/refunds/:refundId', async (ctx) => {
    const { order, refund } = await commands.getRefund(requireScope(ctx.state), refundIdParam(ctx.params.refundId));
    const body: RefundResponse = { refund: presentRefund(order, refund) };
    ctx.body = body;
  });

  router.post('/internal/test-helpers/orders/:orderId/refunds', async (ctx) => {
    const scope = testScope(ctx.state);
    const orderId = orderIdParam(ctx.params.orderId);
    const { outcome, ...body } = parseOrThrow(
      TestHelperCreateRefundRequest,
      ctx.request.jsonBody ?? {},
      'REFUND_FAILED',
    );
    await createRefund(ctx, commands, scope, orderId, { ...body, outcome });
  });

  router.post('/internal/test-helpers/refunds/:refundId/settle', async (ctx) => {
    const scope = testScope(ctx.state);
    const refundId = refundIdParam(ctx.params.refundId);
    const { outcome } = parseOrThrow(SettleRefundRequest, ctx.request.jsonBody ?? {}, 'REFUND_FAILED');
    // The simulated processor refuses a refund as a card network declines it (as a failed test refund at creation).
    answerRefund(
      ctx,
      await commands.settleRefund(scope, refundId, outcome, outcome === 'failed' ? 'declined' : undefined),
    );
  });

  return router;
}
