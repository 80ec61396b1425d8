import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandCounter } from '@checkout/mongo/testing';
import type { OrdersApp } from '../../src/app';
import { internalCaller, startOrdersApp } from './support';

// The database round trips of each orders operation, counted with the driver's command
// monitoring. Counts are deterministic, so they are asserted exactly; a change that adds a round trip has to
// change this file and say why.

const suffix = randomBytes(4).toString('hex');
const scope = { 'x-organization-id': `org_${suffix}`, 'x-mode': 'test' };
const commands = new CommandCounter();
let app: OrdersApp;
let baseUrl: string;

const call = internalCaller(() => baseUrl, scope);

const newOrderBody = (extra: Record<string, unknown> = {}) => ({
  items: [{ name: 'Item', quantity: 1, unitPrice: 1000 }],
  ...extra,
});

beforeAll(async () => {
  const started = await startOrdersApp(
    `round-trips-${suffix}`,
    // The relay's sweep is background work; keep it out of the windows measured here (it runs once at start). So is
    // the ledger (D52), off the payment path: its consumer and sweep, whose cost per movement
    // books-counting.component.test.ts counts, and the report runs' poll.
    {
      OUTBOX_SWEEP_INTERVAL_MS: '3600000',
      CONSUMERS_ENABLED: 'false',
      BALANCE_SWEEP_INTERVAL_MS: '3600000',
      REPORT_POLL_INTERVAL_MS: '3600000',
    },
    commands,
  );
  ({ app, url: baseUrl } = started);
  // Warm-up: the first request of each kind may pay for things a running service has already done.
  await call('POST', '/internal/orders', newOrderBody());
});

afterAll(async () => {
  await app?.stop();
});

describe('database round trips per orders operation', () => {
  it('GET /internal/orders/:id: 1 (find by _id and tenant)', async () => {
    const id = (await call('POST', '/internal/orders', newOrderBody())).body.order.id as string;
    const { result, commands: used, total } = await commands.during(() => call('GET', `/internal/orders/${id}`));
    expect(result.status).toBe(200);
    expect(used).toEqual({ find: 1 });
    expect(total).toBe(1);
  });

  it('POST /internal/orders: 2 (the insert, with order.created in its outbox; the relay marks it sent, D49); +1 with an externalId (its reservation, D37: the uniqueness a sharded orders collection keeps), +2 with a new customer, +1 with a known one', async () => {
    const plain = await commands.during(() => call('POST', '/internal/orders', newOrderBody()));
    expect(plain.result.status).toBe(201);
    expect(plain.commands).toEqual({ insert: 1, update: 1 });

    const external = await commands.during(() =>
      call('POST', '/internal/orders', newOrderBody({ externalId: `ext-${suffix}-1` })),
    );
    expect(external.result.status).toBe(201);
    expect(external.commands).toEqual({ insert: 2, update: 1 });

    const email = `c-${suffix}@example.com`;
    const newCustomer = await commands.during(() =>
      call('POST', '/internal/orders', newOrderBody({ customer: { email } })),
    );
    expect(newCustomer.result.status).toBe(201);
    // Looks the email up, inserts the customer, inserts the order, marks its event sent.
    expect(newCustomer.commands).toEqual({ find: 1, insert: 2, update: 1 });

    const knownCustomer = await commands.during(() =>
      call('POST', '/internal/orders', newOrderBody({ customer: { email } })),
    );
    expect(knownCustomer.result.status).toBe(201);
    expect(knownCustomer.commands).toEqual({ find: 1, insert: 1, update: 1 });
  });

  it('POST /internal/orders/:id/payments: 3 (read, conditional replace with its events, relay marks them sent: order.paid is published at once); cancel: 3 (the same)', async () => {
    const paid = (await call('POST', '/internal/orders', newOrderBody(), { session: `cs_test_${suffix}paid` })).body
      .order.id as string;
    const payment = await commands.during(() =>
      call('POST', `/internal/orders/${paid}/payments`, { paymentId: `pay-${suffix}`, amount: 1000, method: 'card' }),
    );
    expect(payment.result.status).toBe(200);
    expect(payment.commands).toEqual({ find: 1, update: 2 });

    const cancelled = (await call('POST', '/internal/orders', newOrderBody())).body.order.id as string;
    const cancel = await commands.during(() => call('POST', `/internal/orders/${cancelled}/cancel`));
    expect(cancel.result.status).toBe(200);
    expect(cancel.commands).toEqual({ find: 1, update: 2 });
  });

  it('POST /internal/orders/:id/refunds: 3, as a cancel (read, one conditional replace guarding refundable with its events, relay marks them sent; no lease, D48); the list and GET /internal/refunds/:id: 1 each; settling: 4 (the refund found by id, then the same three)', async () => {
    // A session's order: only those take payments from sessions.
    const id = (await call('POST', '/internal/orders', newOrderBody(), { session: `cs_test_${suffix}refund` })).body
      .order.id as string;
    await call('POST', `/internal/orders/${id}/payments`, {
      paymentId: `pay-r-${suffix}`,
      amount: 1000,
      method: 'card',
    });

    const refund = await commands.during(() => call('POST', `/internal/orders/${id}/refunds`, { amount: 300 }));
    expect(refund.result.status).toBe(201);
    expect(refund.commands).toEqual({ find: 1, update: 2 });
    const refundId = refund.result.body.refund.id as string;

    const list = await commands.during(() => call('GET', `/internal/orders/${id}/refunds`));
    expect(list.result.body.refunds).toHaveLength(1);
    expect(list.commands).toEqual({ find: 1 });
    const one = await commands.during(() => call('GET', `/internal/refunds/${refundId}`));
    expect(one.result.status).toBe(200);
    expect(one.commands).toEqual({ find: 1 });

    const pending = await call('POST', `/internal/test-helpers/orders/${id}/refunds`, {
      amount: 100,
      outcome: 'pending',
    });
    const settle = await commands.during(() =>
      call('POST', `/internal/test-helpers/refunds/${pending.body.refund.id as string}/settle`, { outcome: 'failed' }),
    );
    expect(settle.result.status).toBe(200);
    expect(settle.commands).toEqual({ find: 2, update: 2 });

    // Refused: read and nothing written (more than is refundable).
    const refused = await commands.during(() => call('POST', `/internal/orders/${id}/refunds`, { amount: 701 }));
    expect(refused.result.body.code).toBe('REFUND_FAILED');
    expect(refused.commands).toEqual({ find: 1 });
  });
});
